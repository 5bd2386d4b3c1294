import Foundation
import GuardCore

/// The one isolation default: child processes when this program serves rounds, else this process.
extension RoundIsolation {
    /// Where rounds run unless you say otherwise, the default of ``Campaign/Settings/isolation`` (and of the
    /// shrinker's and the kill matrix's settings): child processes running ``roundServer`` when this program set
    /// one, else ``inProcess`` (a child process needs a program that serves rounds). `guard-stress` sets one at
    /// start-up, so its rounds run in child processes unless `--in-process`; a program of yours that never set one
    /// runs them in process.
    ///
    /// It is read when the settings holding it are made: set ``roundServer`` first.
    public static var automatic: RoundIsolation {
        roundServer.map(RoundIsolation.childProcesses) ?? .inProcess
    }

    /// How to start this program as a round server (a child that calls ``RoundServer/serve(makeTarget:)``), or `nil`
    /// (the default) if it does not serve rounds. Set it at start-up, with ``registerRoundServer(arguments:)`` for
    /// this program itself; ``automatic`` then runs rounds in child processes started this way. Setting `nil` makes
    /// ``automatic`` in process again.
    public static var roundServer: ChildProcessSettings? {
        get { registeredServer.current }
        set { _ = registeredServer.exchange(newValue) }
    }

    /// Declares that this program serves rounds when started with `arguments` (it then calls
    /// ``RoundServer/serve(makeTarget:)``): sets ``roundServer`` to this program's own executable
    /// (``ChildProcessSettings/thisExecutable``) with those arguments and the default child-process settings.
    public static func registerRoundServer(arguments: [String]) {
        roundServer = ChildProcessSettings(executable: ChildProcessSettings.thisExecutable, arguments: arguments)
    }

    private static let registeredServer = Protected<ChildProcessSettings?>(nil)
}

extension ChildProcessSettings {
    /// This program's own executable file (on Linux `/proc/self/exe` resolved, elsewhere the main bundle's), to
    /// start it again as a child.
    public static var thisExecutable: String {
        #if os(Linux)
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return resolved }
        #endif
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }
}
