import FaultInjector
import GuardCore

/// A controller that hands every call to `inner` (usually the guard's): the test systems under test subclass it and
/// override only the call they break or instrument. Calls the subclass does not override behave exactly as
/// `inner`'s.
open class ForwardingController: StressController, @unchecked Sendable {
    /// The controller every call goes to.
    package let inner: any StressController

    public init(inner: any StressController) {
        self.inner = inner
    }

    /// The guard's own controller for `observer` (its diagnostics counted and dropped), the usual `inner`.
    package static func guardController(
        for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
    ) -> any StressController {
        GuardTarget(diagnostics: CountingSink(keepsEvents: false))
            .makeController(for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics)
    }

    open func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall
    ) -> ObserveOutcome {
        inner.observe(object, keyPath: keyPath, options: options, sink: sink, call: call)
    }

    open func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
        inner.unobserve(object, keyPath: keyPath, call: call)
    }

    open func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome {
        inner.unobserve(object, call: call)
    }

    open func unobserveAll(call: StressCall) -> Int? {
        inner.unobserveAll(call: call)
    }
}
