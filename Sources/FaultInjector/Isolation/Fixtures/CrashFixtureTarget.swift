import Dispatch
import Foundation
import GuardCore

/// **Test fixtures, not systems worth testing.** The guard, except that an observe (of any key path, in any form) kills
/// the process:
/// with a segmentation fault (`fixture-segv`), a Swift runtime trap (`fixture-trap`, a `fatalError`), or a hang on a
/// semaphore nobody signals (`fixture-hang`); `fixture-hang-in-teardown` instead hangs when a controller is released
/// (at the latest in the run's teardown, where no runner watchdog looks); `fixture-slow` breaks nothing but takes 2 ms
/// per observe, a correct system whose long rounds must be waited for as long as they make progress;
/// `fixture-fails-once` answers the first observe of its process `.duplicate` without registering anything and is the
/// guard after that, a failure that does not come back (what shrinking must not confirm). They exist so the harness's round
/// isolation can be checked end to end (`guard-stress run --target fixture-segv` must report `crash(SIGSEGV)` with a
/// seed file that replays it, and go on). The catalog accepts their names but does not list them
/// (``TargetCatalog/testFixtureNames``).
///
/// Whether a round fails depends only on its operations (an observe that reaches the controller), so a
/// single-worker scenario fails in exactly the same rounds every time.
public struct CrashFixtureTarget: SystemUnderTest {
    /// How the fixture breaks.
    public enum Failure: String, CaseIterable, Sendable {
        /// A store through a bad pointer: SIGSEGV.
        case segv
        /// `fatalError`: SIGILL on x86-64, SIGTRAP on arm64.
        case trap
        /// Waits on a semaphore that is never signalled.
        case hang
        /// Waits on a semaphore that is never signalled when a controller is released.
        case hangInTeardown = "hang-in-teardown"
        /// Sleeps 2 ms in every observe and is otherwise the guard: nothing fails.
        case slow
        /// Answers the first observe of the process `.duplicate` without registering it; the guard after that.
        case failsOnce = "fails-once"
    }

    /// How this fixture breaks.
    public let failure: Failure
    /// `fixture-` and the failure's name.
    public var name: String { "fixture-\(failure.rawValue)" }
    /// It is the guard until it breaks.
    public let promisesGuardSemantics = true
    private let inner: GuardTarget

    /// The fixture that breaks with `failure`; the guard's diagnostics go to `diagnostics`.
    public init(_ failure: Failure, diagnostics: any DiagnosticSink) {
        self.failure = failure
        inner = GuardTarget(diagnostics: diagnostics)
    }

    /// The fixture named `name` (`fixture-segv`, `fixture-trap`, `fixture-hang`, `fixture-hang-in-teardown`), or
    /// `nil`.
    public init?(name: String, diagnostics: any DiagnosticSink) {
        guard let failure = Failure.allCases.first(where: { "fixture-\($0.rawValue)" == name }) else { return nil }
        self.init(failure, diagnostics: diagnostics)
    }

    /// The guard's controller, breaking on an observe.
    public func makeController(
        for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
    ) -> any StressController {
        BreakingController(
            inner: inner.makeController(for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics),
            failure: failure)
    }
}

/// The guard's controller with the fixture's fault in `observe`.
private final class BreakingController: StressController, @unchecked Sendable {
    let inner: any StressController
    let failure: CrashFixtureTarget.Failure

    init(inner: any StressController, failure: CrashFixtureTarget.Failure) {
        self.inner = inner
        self.failure = failure
    }

    deinit {
        if failure == .hangInTeardown { DispatchSemaphore(value: 0).wait() }
    }

    /// Set once `fixture-fails-once` failed in this process.
    private static let failedOnce = AtomicCell()

    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall
    ) -> ObserveOutcome {
        breakDown()
        if failure == .failsOnce, Self.failedOnce.word.exchange(1) == 0 { return .duplicate }
        return inner.observe(object, keyPath: keyPath, options: options, sink: sink, call: call)
    }

    func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
        inner.unobserve(object, keyPath: keyPath, call: call)
    }

    func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome {
        inner.unobserve(object, call: call)
    }

    func unobserveAll(call: StressCall) -> Int? {
        inner.unobserveAll(call: call)
    }

    private func breakDown() {
        switch failure {
        case .segv: Self.store(to: 8)
        case .trap: fatalError("fixture-trap: deliberate trap while observing")
        case .hang: DispatchSemaphore(value: 0).wait()
        case .hangInTeardown: break
        case .slow: usleep(2_000)
        case .failsOnce: break
        }
    }

    /// Stores through the pointer `address` (a bad one: the process gets SIGSEGV).
    @inline(never)
    private static func store(to address: Int) {
        UnsafeMutablePointer<Int>(bitPattern: address)!.pointee = 1
    }
}
