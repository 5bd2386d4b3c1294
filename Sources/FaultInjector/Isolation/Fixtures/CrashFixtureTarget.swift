import Dispatch
import GuardCore

/// **Test fixtures, not systems worth testing.** The guard, except that observing key `k2` kills the process:
/// with a segmentation fault (`fixture-segv`), a Swift runtime trap (`fixture-trap`, a `fatalError`), or a hang on a
/// semaphore nobody signals (`fixture-hang`); `fixture-hang-in-teardown` instead hangs when a controller is released
/// (at the latest in the run's teardown, where no runner watchdog looks). They exist so the harness's round
/// isolation can be checked end to end (`guard-stress run --target fixture-segv` must report `crash(SIGSEGV)` with a
/// seed file that replays it, and go on). The catalog accepts their names but does not list them
/// (``TargetCatalog/testFixtureNames``).
///
/// Whether a round fails depends only on its operations (an observe of `k2` that reaches the controller), so a
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

    /// The guard's controller, breaking on an observe of `k2`.
    public func makeController(for observer: StressObserver, retainsObjects: Bool) -> any StressController {
        BreakingController(inner: inner.makeController(for: observer, retainsObjects: retainsObjects), failure: failure)
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

    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink
    ) -> ObserveOutcome {
        if keyPath == StressKey.k2.name { breakDown() }
        return inner.observe(object, keyPath: keyPath, options: options, sink: sink)
    }

    func unobserve(_ object: StressObject, keyPath: String) -> UnobserveOutcome {
        inner.unobserve(object, keyPath: keyPath)
    }

    func unobserve(_ object: StressObject) -> UnobserveOutcome {
        inner.unobserve(object)
    }

    func unobserveAll() {
        inner.unobserveAll()
    }

    private func breakDown() {
        switch failure {
        case .segv: Self.store(to: 8)
        case .trap: fatalError("fixture-trap: deliberate trap while observing k2")
        case .hang: DispatchSemaphore(value: 0).wait()
        case .hangInTeardown: break
        }
    }

    /// Stores through the pointer `address` (a bad one: the process gets SIGSEGV).
    @inline(never)
    private static func store(to address: Int) {
        UnsafeMutablePointer<Int>(bitPattern: address)!.pointee = 1
    }
}
