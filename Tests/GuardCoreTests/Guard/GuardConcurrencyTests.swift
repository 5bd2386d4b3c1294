import FaultInjector
import Foundation
import GuardCore
import XCTest

/// Many Dispatch queues, released together from a barrier, hammer shared controllers (half of them holding their
/// objects weakly) on shared objects with every operation the fault injector has: observe in every form (with
/// `.initial`, forwarding with contexts, typed key paths), unobserve in every form, unobserve of an object and of
/// everything, changes of every kind (stored keys, links of dotted key paths, manual and to-many notifications),
/// queries, releases of observers, controllers and objects, and handlers that unobserve, release their controller,
/// re-enter or adopt an object while notifications race with registrations and removals everywhere.
///
/// The system under test is the guard in front of an auditing backend: the runtime, plus a ledger of every backend
/// handle the guard added and removed. The fault injector's oracle checks the whole recorded history (every result
/// linearizable per controller and object, every query and count, every diagnostic against its call, every
/// notification against the registrations live when its change was made, no misuse, no leak, no deadlock); the
/// ledger checks that the guard never removes a handle twice or one it never added.
final class GuardConcurrencyTests: XCTestCase {
    func testManyQueuesHammerSharedControllersOnSharedObjects() throws {
        var configuration = ScenarioProfile.mixed.configuration()
        configuration.workers = 36
        configuration.operationsPerWorker = 1_500
        configuration.objects = 8
        configuration.controllers = 6
        configuration.weakHoldingEvery = 2
        configuration.actions.unobserveSelf = 20
        configuration.actions.adopt = 4
        let target = AuditedGuardTarget()
        let result = ChaosRunner().runAndEvaluate(Scenario(configuration: configuration, seed: 0x5EED_0C0C), against: target)

        let violations = result.verdict.violations.prefix(10).map { "\($0.kind.rawValue): \($0.message)" }
        XCTAssertTrue(result.passed, "the oracle was violated (\(result.verdict.signature)):\n" + violations.joined(separator: "\n"))
        XCTAssertFalse(result.verdict.abandoned, "the run deadlocked")
        XCTAssertEqual(target.ledger.problems, [], "the guard's backend calls")
        XCTAssertGreaterThan(target.ledger.added, 1_000)
        XCTAssertGreaterThan(target.ledger.removed, 500)

        // The run did what it claims: every result and every kind of operation happened, and the oracle looked.
        let records = result.history.operations
        var outcomes: [String: Int] = [:]
        for record in records {
            outcomes["\(record.kind) \(record.outcome)", default: 0] += 1
        }
        for expected in [
            "observe registered", "observe duplicate", "observe invalid", "unobserve removed", "unobserve alreadyRemoved",
            "unobserve notRegistered", "unobserve invalid", "unobserveObject removed", "unobserveObject notRegistered",
            "unobserveAll none", "mutate none", "link none", "announce none", "changeItems none", "adoptObject none",
            "countRegistrations answered", "isObserving answered", "observedKeyPaths answered", "releaseObserver none",
            "releaseController none", "releaseObject none",
        ] {
            XCTAssertGreaterThan(outcomes[expected, default: 0], 0, "no \(expected) happened: \(outcomes)")
        }
        let initialObserves = Set(records.filter { $0.kind == .observe && $0.options.contains(.initial) }.map(\.id))
        let unobservesInInitial = records.filter { $0.kind == .unobserve && initialObserves.contains($0.parent) }
        XCTAssertGreaterThan(unobservesInInitial.count, 10, "unobserve inside the .initial handler (radar 34307466)")
        XCTAssertGreaterThan(result.verdict.deliveries, 10_000)
        for check in [
            "observe/unobserve results linearizable", "registration counts within what was surely and possibly registered",
            "one diagnostic per absorbed mistake, naming its call site", "a live registration hears every change",
            "no change made after unobserve returned is delivered to the removed registration", "nothing leaked",
        ] {
            XCTAssertGreaterThan(result.verdict.checks[check, default: 0], 0, "the oracle never checked '\(check)'")
        }
        XCTAssertEqual(result.verdict.runtimeMisuses, [:], "the guard let a misuse reach the runtime")
    }
}

/// The guard over GuardCore's runtime backend with every handle it returns and every removal the guard asks for
/// written down (``BackendLedger/auditingBackend``): one ledger for all its controllers.
private struct AuditedGuardTarget: SystemUnderTest {
    let name = "audited-guard"
    let promisesGuardSemantics = true
    let reportsDiagnostics = true
    let ledger = BackendLedger()

    func makeController(
        for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
    ) -> any StressController {
        GuardTarget(diagnostics: CountingSink(keepsEvents: false), backend: ledger.auditingBackend)
            .makeController(for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics)
    }
}

/// The handles a backend gave out and took back, and what was wrong with the guard's calls.
///
/// Handles are known by identity only, never kept: a removed handle holds the guard's registration, which may hold
/// its object strongly, so keeping it would keep the object alive. An identity can come back only once its handle is
/// gone, and the guard cannot remove a handle it no longer has.
private final class BackendLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var live: Set<ObjectIdentifier> = []
    private var counts = (added: 0, removed: 0)
    private var found: [String] = []

    var added: Int { lock.withLock { counts.added } }
    var removed: Int { lock.withLock { counts.removed } }
    var problems: [String] { lock.withLock { Array(found.prefix(10)) } }

    func note(_ problem: String) {
        lock.withLock { found.append(problem) }
    }

    func added(_ handle: any BackendHandle) {
        lock.withLock {
            counts.added += 1
            live.insert(ObjectIdentifier(handle))
        }
    }

    func removed(_ handle: any BackendHandle) {
        lock.withLock {
            counts.removed += 1
            if live.remove(ObjectIdentifier(handle)) == nil {
                found.append("removed a handle twice, or one the backend never gave out")
            }
        }
    }

    /// GuardCore's runtime backend writing down in this ledger every handle it returns, every removal the guard asks
    /// for, and an `.initial` the guard should never pass on.
    var auditingBackend: WrappedRuntimeBackend {
        WrappedRuntimeBackend(
            beforeAdd: { [self] keyPath, options in
                if options.contains(.initial) { note("the guard passed .initial to the backend for \(keyPath)") }
            },
            afterAdd: { [self] handle in
                if let handle { added(handle) }
            },
            beforeRemove: { [self] handle in removed(handle) })
    }
}
