@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import XCTest

/// ``RoundIsolation/automatic``, the one isolation default: in process in a program that serves no rounds (this test
/// process, until a test registers a server), child processes running the registered round server once one is set.
final class AutomaticIsolationTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-automatic-isolation")
        XCTAssertNil(RoundIsolation.roundServer, "a program that never registered serves no rounds")
    }

    override func tearDown() {
        RoundIsolation.roundServer = nil
        directory?.remove()
        directory = nil
    }

    /// A short chaos campaign against the guard with the default isolation.
    private func defaultCampaign() throws -> CampaignSummary {
        var settings = Campaign.Settings()
        settings.seed = 3
        settings.scenario.workers = 4
        settings.scenario.operationsPerWorker = 25
        settings.operationBudget = 200
        settings.outputDirectory = directory.file("seeds")
        return try Campaign(settings: settings).run()
    }

    func testAProgramThatServesNoRoundsRunsThemInProcess() throws {
        XCTAssertNil(RoundIsolation.automatic.childProcessSettings)
        XCTAssertNil(Campaign.Settings().isolation.childProcessSettings)
        let summary = try defaultCampaign()
        XCTAssertNil(summary.harnessError)
        XCTAssertTrue(summary.passed, "\(summary.failures.map(\.messages))")
        XCTAssertNil(summary.isolation, "no child process took part")
    }

    func testOnceARoundServerIsRegisteredRoundsRunInChildProcessesRunningIt() throws {
        let server = ChildProcessSettings(executable: try GuardStressProcess.executable().path, arguments: ["__serve-rounds"])
        RoundIsolation.roundServer = server
        let settings = try XCTUnwrap(Campaign.Settings().isolation.childProcessSettings)
        XCTAssertEqual(settings.executable, server.executable)
        XCTAssertEqual(settings.arguments, ["__serve-rounds"])
        let summary = try defaultCampaign()
        XCTAssertNil(summary.harnessError)
        XCTAssertTrue(summary.passed, "\(summary.failures.map(\.messages))")
        let statistics = try XCTUnwrap(summary.isolation, "the rounds ran in child processes")
        XCTAssertEqual(statistics.rounds, summary.rounds)
        XCTAssertGreaterThan(statistics.processesReady, 0)
        XCTAssertEqual(summary.verdict.checks[Verdict.survivalCheck], summary.rounds)

        RoundIsolation.roundServer = nil
        XCTAssertNil(Campaign.Settings().isolation.childProcessSettings, "unregistered: in process again")
    }

    func testRegisteringNamesThisProgramWithTheDefaultChildSettings() throws {
        RoundIsolation.registerRoundServer(arguments: ["serve", "--quiet"])
        let server = try XCTUnwrap(RoundIsolation.roundServer)
        XCTAssertEqual(server.executable, ChildProcessSettings.thisExecutable)
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: server.executable), server.executable)
        XCTAssertEqual(server.arguments, ["serve", "--quiet"])
        let defaults = ChildProcessSettings(executable: server.executable, arguments: server.arguments)
        XCTAssertEqual(server.stallTimeout, defaults.stallTimeout)
        XCTAssertNil(server.roundsPerProcess)
        XCTAssertEqual(RoundIsolation.automatic.childProcessSettings?.arguments, ["serve", "--quiet"])
    }
}
