import Foundation

/// Exact replays need the same Set and Dictionary order in every process: `SWIFT_DETERMINISTIC_HASHING=1`. The
/// runtime reads it once at startup, so when it is missing guard-stress starts itself again with it set.
enum DeterministicHashing {
    static let variable = "SWIFT_DETERMINISTIC_HASHING"

    /// Re-executes the process with the variable set, unless it is set already (or re-executing fails, in which
    /// case a warning says replays may differ across processes).
    static func ensure() {
        if let value = getenv(variable), String(cString: value) == "1" { return }
        setenv(variable, "1", 1)
        guard let executable = Bundle.main.executablePath ?? CommandLine.arguments.first else { return warn() }
        var arguments: [UnsafeMutablePointer<CChar>?] = CommandLine.arguments.map { strdup($0) }
        arguments.append(nil)
        execv(executable, arguments)
        warn()
    }

    private static func warn() {
        Terminal.printError(
            "guard-stress: warning: could not restart with \(variable)=1; set it yourself for replays that match "
                + "across processes")
    }
}
