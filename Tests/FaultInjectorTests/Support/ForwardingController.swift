import FaultInjector
import GuardCore

/// A controller that hands every call to `inner` (usually the guard's): the test systems under test subclass it and
/// override only the call they break or instrument. Calls the subclass does not override behave exactly as
/// `inner`'s.
class ForwardingController: StressController, @unchecked Sendable {
    /// The controller every call goes to.
    let inner: any StressController

    init(inner: any StressController) {
        self.inner = inner
    }

    /// The guard's own controller for `observer` (its diagnostics counted and dropped), the usual `inner`.
    static func guardController(
        for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
    ) -> any StressController {
        GuardTarget(diagnostics: CountingSink(keepsEvents: false))
            .makeController(for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics)
    }

    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall
    ) -> ObserveOutcome {
        inner.observe(object, keyPath: keyPath, options: options, sink: sink, call: call)
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
}
