import FaultInjectorTestSupport
import Foundation
import XCTest

/// `scripts/replay.sh`, `scripts/stress.sh` and `scripts/static-check.sh`, run with a stand-in `swift` first on the
/// PATH (no real build).
final class ScriptTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-scripts")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    /// The repository.
    private var repository: URL { PackageRoot.url }

    /// Runs `script` with `arguments` in the test directory, with a `swift` that fails; its exit status and stderr.
    private func runWithFailingBuild(_ script: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let bin = directory.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let swift = try directory.write("#!/bin/sh\necho 'error: a stand-in build failure' >&2\nexit 1\n", to: "bin/swift")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repository.appendingPathComponent("scripts/\(script)").path] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        process.environment = environment
        let errorPipe = Pipe()
        process.standardError = errorPipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: errorPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stderr)
    }

    /// A failed build is exit 2 (the documented "could not run"), not 1, which reads as "reproduced" or "violated".
    func testAFailedBuildExitsTwo() throws {
        let replay = try runWithFailingBuild("replay.sh", ["seed.json"])
        XCTAssertEqual(replay.status, 2, replay.stderr)
        XCTAssertTrue(replay.stderr.contains("the build of guard-stress failed"), replay.stderr)
        let stress = try runWithFailingBuild("stress.sh", ["1"])
        XCTAssertEqual(stress.status, 2, stress.stderr)
        XCTAssertTrue(stress.stderr.contains("the build of guard-stress failed"), stress.stderr)
    }

    /// `scripts/static-check.sh` with a stand-in `swift` whose "build" writes `guardStress` as the static binary into
    /// the scratch path it is given; its exit status, standard output and standard error.
    private func runStaticCheck(guardStress: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let bin = directory.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let fakeBinary = try directory.write(guardStress, to: "fake-guard-stress")
        let swift = try directory.write(
            """
            #!/bin/sh
            while [ $# -gt 0 ]; do
                case "$1" in --scratch-path) shift; scratch="$1" ;; esac
                shift
            done
            mkdir -p "$scratch/release" && cp '\(fakeBinary)' "$scratch/release/guard-stress" \
                && chmod +x "$scratch/release/guard-stress"
            """, to: "bin/swift")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repository.appendingPathComponent("scripts/static-check.sh").path, "1"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["STATIC_SCRATCH_PATH"] = directory.file("scratch")
        process.environment = environment
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        try process.run()
        let stdout = String(decoding: outputPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: errorPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }

    /// The static check runs the built binary's default campaign for the seconds it is given and passes only when
    /// that campaign exits 0 without saying it cannot read stored properties.
    func testTheStaticCheckRequiresAPassingCampaignThatFindsItsKeys() throws {
        let passing = try runStaticCheck(guardStress: "#!/bin/sh\necho \"args: $*\"\nexit 0\n")
        XCTAssertEqual(passing.status, 0, passing.stderr)
        XCTAssertTrue(passing.stdout.contains("args: run --duration 1"), passing.stdout)
        XCTAssertTrue(passing.stdout.contains("passed a 1-second default campaign"), passing.stdout)

        let failing = try runStaticCheck(guardStress: "#!/bin/sh\necho 'RESULT: FAIL'\nexit 1\n")
        XCTAssertEqual(failing.status, 1, failing.stderr)
        XCTAssertTrue(failing.stderr.contains("campaign exited 1"), failing.stderr)

        let keyless = try runStaticCheck(
            guardStress: "#!/bin/sh\necho 'KVOGuard: key-value coding cannot read stored properties in this process' >&2\n")
        XCTAssertEqual(keyless.status, 1, keyless.stderr)
        XCTAssertTrue(keyless.stderr.contains("cannot read stored properties (see above)"), keyless.stderr)
    }

    func testAFailedStaticBuildExitsTwo() throws {
        let result = try runWithFailingBuild("static-check.sh", ["1"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("the static build of guard-stress failed"), result.stderr)
    }
}
