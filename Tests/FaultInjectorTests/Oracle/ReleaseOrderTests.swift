import FaultInjector
import Foundation
import GuardCore
import XCTest

/// The release-order check against the unmodified guard, where a dependent key's relayed change is open while a bulk
/// removal runs.
final class ReleaseOrderTests: XCTestCase {
    /// `linked` depends on `link.k0`. While a change of `o1.k0` is relayed to `o0.linked`, a handler removes every
    /// registration of `c0`; the other registration's handler holds `o0` (it adopted it), the last reference to it,
    /// since `c0` holds objects weakly. Once, releasing that handler ended `o0` and with it the relayed change, which
    /// held `linked`'s registration: the removal released it after the one made after it. Every interleaving now keeps
    /// the order (the relayed change holds `o0` until it ends).
    func testABulkRemovalDuringARelayedChangeReleasesInRegistrationOrder() throws {
        let text = """
            target guard
            weak c0
            worker 0:
              link o0 o1
              observe c0 o0 linked []
              observe c0 o0 k0 [initial] then adopt o0
              observe c0 o1 k0 [] then unobserve-all
              mutate o1 k0
            """
        let scenario = try ScenarioFile.parse(text).scenario
        let target = try XCTUnwrap(TargetCatalog.make("guard", diagnostics: CountingSink(keepsEvents: false)))
        let outcome = Explorer(scenario: scenario, target: target, settings: ExplorationSettings()).explore()
        XCTAssertEqual(outcome.answer, .complete, outcome.summary)
        XCTAssertNil(outcome.failure, outcome.summary)
        let result = ControlledRunner().runAndEvaluate(scenario, against: target)
        XCTAssertTrue(result.passed, result.verdict.signature)
        XCTAssertTrue(
            result.history.operations.contains { $0.kind == .unobserveAll },
            "the handler's removal did not run")
    }
}
