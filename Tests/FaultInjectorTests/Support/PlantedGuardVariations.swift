import FaultInjector
import FaultInjectorTestSupport
import Foundation
import GuardCore

/// Variations of the shipped guard, planted at its edge for the tests, never in the library: each wraps the
/// unmodified guard and breaks exactly one promise its documentation makes, the way a change to GuardCore would,
/// so a test can show which check of the oracle (and which scenario) catches it.
struct PlantedGuardVariation: SystemUnderTest {
    enum Variation: String, CaseIterable, Sendable {
        /// A bulk removal (`unobserveAll()`, `unobserve(object)`, releasing the controller) releases the
        /// registrations it takes out newest first instead of in the order they were made.
        case reversedBulkRelease = "reversed-bulk-release"
        /// A registration that joins a change under way gets the change's prior notification after the change.
        case latePriorAfterChange = "late-prior-after-change"
        /// Key paths are compared as Swift strings, and long ones by their first 64 bytes: `caf\u{E9}` and
        /// `cafe\u{301}` are one key, and so are two long keys with a common beginning.
        case keysComparedAsStrings = "keys-compared-as-strings"
    }

    let variation: Variation
    var name: String { "planted-" + variation.rawValue }
    let promisesGuardSemantics = true
    let dropsWeakRegistrationsInObjectDeinit = true
    let answersRemovalsInObjectDeinit = true
    let refusesObservationInObjectDeinit = true
    let releasesInRegistrationOrder = true

    func makeController(
        for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
    ) -> any StressController {
        let inner = ForwardingController.guardController(for: observer, retainsObjects: retainsObjects, diagnostics: diagnostics)
        switch variation {
        case .reversedBulkRelease: return ReversedReleaseController(inner: inner)
        case .latePriorAfterChange: return LatePriorController(inner: inner)
        case .keysComparedAsStrings: return ConflatingKeysController(inner: inner)
        }
    }

    /// A factory for campaigns: the variations by name, and everything the built-in catalog makes.
    static func factory(_ name: String, _ diagnostics: any DiagnosticSink) -> (any SystemUnderTest)? {
        if let variation = Variation.allCases.first(where: { "planted-" + $0.rawValue == name }) {
            return PlantedGuardVariation(variation: variation)
        }
        return TargetCatalog.make(name, diagnostics: diagnostics)
    }
}

/// Hands every call, queries included, to `inner`; the variations override what they change. (The forwarding and
/// typed observe variants reach ``observe(_:keyPath:options:sink:call:)`` through the protocol's defaults.)
private class AnsweringController: StressController, @unchecked Sendable {
    let inner: any StressController

    init(inner: any StressController) {
        self.inner = inner
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

    func registrationCount() -> Int? { inner.registrationCount() }
    func isObserving(_ object: StressObject, keyPath: String) -> Bool? { inner.isObserving(object, keyPath: keyPath) }
    func observedKeyPaths(of object: StressObject) -> [String]? { inner.observedKeyPaths(of: object) }
}

/// Keeps a weak list of the handlers' sinks in registration order; around a bulk removal it holds the ones the
/// removal takes out, and lets them go newest first once the guard has let go of them in order: the same lifetimes,
/// the opposite order.
private final class ReversedReleaseController: StressController, @unchecked Sendable {
    private var inner: (any StressController)?
    private let lock = NSLock()
    private var sinks: [(object: ObjectIdentifier, sink: WeakSink)] = []

    private final class WeakSink {
        weak var sink: DeliverySink?
        init(_ sink: DeliverySink) { self.sink = sink }
    }

    init(inner: any StressController) {
        self.inner = inner
    }

    deinit {
        var held = heldSinks { _ in true }
        inner = nil
        Self.releaseNewestFirst(&held)
    }

    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall
    ) -> ObserveOutcome {
        let outcome = inner!.observe(object, keyPath: keyPath, options: options, sink: sink, call: call)
        if outcome == .registered {
            lock.lock()
            sinks.removeAll { $0.sink.sink == nil }
            sinks.append((ObjectIdentifier(object), WeakSink(sink)))
            lock.unlock()
        }
        return outcome
    }

    func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
        inner!.unobserve(object, keyPath: keyPath, call: call)
    }

    func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome {
        let id = ObjectIdentifier(object)
        var held = heldSinks { $0 == id }
        let outcome = inner!.unobserve(object, call: call)
        Self.releaseNewestFirst(&held)
        return outcome
    }

    func unobserveAll(call: StressCall) -> Int? {
        var held = heldSinks { _ in true }
        let removed = inner!.unobserveAll(call: call)
        Self.releaseNewestFirst(&held)
        return removed
    }

    func registrationCount() -> Int? { inner!.registrationCount() }
    func isObserving(_ object: StressObject, keyPath: String) -> Bool? { inner!.isObserving(object, keyPath: keyPath) }
    func observedKeyPaths(of object: StressObject) -> [String]? { inner!.observedKeyPaths(of: object) }

    private func heldSinks(of matches: (ObjectIdentifier) -> Bool) -> [DeliverySink] {
        lock.lock()
        defer { lock.unlock() }
        return sinks.filter { matches($0.object) }.compactMap(\.sink.sink)
    }

    /// Lets go of `held` (the only references left once the guard let go) from the last to the first.
    private static func releaseNewestFirst(_ held: inout [DeliverySink]) {
        while !held.isEmpty { held.removeLast() }
    }
}

/// Hands a prior notification that arrives while the observe making the registration is still running (the
/// registration joined a change under way) to the handler only after that change's notification.
/// A weak reference, for what a test's sink holds on to.
private struct HeldWeakly<Object: AnyObject> {
    weak var value: Object?
}

private final class LatePriorController: AnsweringController, @unchecked Sendable {
    private final class Reordering: DeliverySink, @unchecked Sendable {
        let target: DeliverySink
        private let lock = NSLock()
        private var observing = true
        /// The prior held back, its observer and object held weakly: a prior whose change never comes on its thread
        /// must not keep them alive (the registration holds this sink, so a strong observer would be a cycle).
        private var held: (observer: HeldWeakly<StressObserver>, object: HeldWeakly<StressObject>, change: KeyValueChange, thread: UInt64)?

        init(_ target: DeliverySink) { self.target = target }

        func observeReturned() {
            lock.lock()
            observing = false
            lock.unlock()
        }

        func deliver(observer: StressObserver?, object: StressObject, change: KeyValueChange) {
            // The change comes on the thread of its prior notification (the `.initial` one on the observing thread).
            let thread = CurrentThread.identifier
            lock.lock()
            if change.isPrior, observing, held == nil {
                held = (HeldWeakly(value: observer), HeldWeakly(value: object), change, thread)
                lock.unlock()
                return
            }
            let late = !change.isPrior && held?.thread == thread ? held : nil
            if late != nil { held = nil }
            lock.unlock()
            target.deliver(observer: observer, object: object, change: change)
            if let late, let lateObject = late.object.value {
                target.deliver(observer: late.observer.value, object: lateObject, change: late.change)
            }
        }
    }

    override func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall
    ) -> ObserveOutcome {
        let reordering = Reordering(sink)
        defer { reordering.observeReturned() }
        return inner.observe(object, keyPath: keyPath, options: options, sink: reordering, call: call)
    }
}

/// Compares key paths the way Swift compares strings: every call names the canonical composition of its key path
/// (`cafe\u{301}` becomes `caf\u{E9}`), and a long key path by the first spelling seen with the same first 64 bytes.
private final class ConflatingKeysController: AnsweringController, @unchecked Sendable {
    private let lock = NSLock()
    private var longKeys: [String: String] = [:]

    private func conflated(_ keyPath: String) -> String {
        let composed = keyPath.precomposedStringWithCanonicalMapping
        guard composed.utf8.count > 64 else { return composed }
        let prefix = String(decoding: composed.utf8.prefix(64), as: UTF8.self)
        lock.lock()
        defer { lock.unlock() }
        if let first = longKeys[prefix] { return first }
        longKeys[prefix] = composed
        return composed
    }

    override func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall
    ) -> ObserveOutcome {
        inner.observe(object, keyPath: conflated(keyPath), options: options, sink: sink, call: call)
    }

    override func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
        inner.unobserve(object, keyPath: conflated(keyPath), call: call)
    }

    override func isObserving(_ object: StressObject, keyPath: String) -> Bool? {
        inner.isObserving(object, keyPath: conflated(keyPath))
    }
}
