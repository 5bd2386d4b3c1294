import GuardCore

/// An object model other than GuardCore's runtime that the guard can be stress-tested on: `NSObject` with
/// Foundation's KVO on Apple platforms (``TargetCatalog`` names it `nsobject`), or anything else with a
/// ``KeyValueObservingBackend``.
///
/// The harness only knows ``StressObject``s, so each one gets a twin in the other model whose keys (`k0`, `k1`,
/// `k2`, and `sum` depending on `k0` and `k1`) read a ``StressTwinState``. The twin announces each change by hand,
/// `willChange` from the stress object's prior notification and `didChange` from its change notification, while the
/// state shows the old value until `didChange`, so the twin's observers see exactly the stress object's old and new
/// values, synchronously on the mutating thread.
public protocol StressTwinModel: Sendable {
    /// The target's name in reports and seed files.
    var name: String { get }
    /// The backend the guard uses for twins.
    func makeBackend() -> any KeyValueObservingBackend
    /// A new twin whose keys read `state` (``StressTwinState/value(of:)``); it must hold `state` strongly.
    func makeTwin(reading state: StressTwinState) -> AnyObject
    /// Announces that `key` of `twin` is about to change (`willChangeValue(forKey:)`).
    func willChange(_ key: StressKey, of twin: AnyObject)
    /// Announces that `key` of `twin` changed (`didChangeValue(forKey:)`).
    func didChange(_ key: StressKey, of twin: AnyObject)
}

/// What a twin's keys read: the stress object's values, except inside the twin's own `willChange` call for a key,
/// where that key reads the old value the change carries. (A mirroring registration may join a change that is
/// already under way and hear its prior notification only after the new value was stored; the old value then comes
/// from the change itself, never from a read that is too late.) Everything about a change happens on the mutating
/// thread, so the override is per thread, and it is scoped to its own `willChange` call: changes nested inside it
/// (from handlers) read the live values.
public final class StressTwinState: @unchecked Sendable {
    private final class ThreadState {
        /// How many mirrored announcements this thread is inside.
        var depth = 0
        var overrides: [(twin: ObjectIdentifier, key: StressKey, value: Int, depth: Int)] = []
        /// `willChange` calls not yet paired with their `didChange`, innermost last.
        var announced: [(twin: ObjectIdentifier, key: StressKey)] = []
    }

    private static let threadState = ThreadLocal { ThreadState() }
    private let source: UncheckedWeak<StressObject>

    init(source: StressObject) {
        self.source = UncheckedWeak(source)
    }

    private var id: ObjectIdentifier { ObjectIdentifier(self) }

    /// The value a twin shows for `key` now, on this thread.
    public func value(of key: StressKey) -> Int {
        if key == .sum { return value(of: .k0) &+ value(of: .k1) }
        if let state = Self.threadState.valueIfCreated,
            let override = state.overrides.last(where: { $0.twin == id && $0.key == key && $0.depth == state.depth })
        {
            return override.value
        }
        return source.value?.value(of: key) ?? 0
    }

    /// Runs `announce` (the twin's `willChangeValue(forKey:)`) with `key` showing `oldValue`.
    func announceWillChange(of key: StressKey, oldValue: Int, _ announce: () -> Void) {
        let state = Self.threadState.value
        state.depth += 1
        state.overrides.append((id, key, oldValue, state.depth))
        state.announced.append((id, key))
        announce()
        state.overrides.removeLast()
        state.depth -= 1
    }

    /// Runs `announce` (the twin's `didChangeValue(forKey:)`), first announcing the `willChange` if this thread never
    /// did (a registration that joined a change under way may hear only its end).
    func announceDidChange(
        of key: StressKey, oldValue: Int, willChange: () -> Void, _ announce: () -> Void
    ) {
        let state = Self.threadState.value
        let id = self.id
        if state.announced.lastIndex(where: { $0.twin == id && $0.key == key }) == nil {
            announceWillChange(of: key, oldValue: oldValue, willChange)
        }
        if let index = state.announced.lastIndex(where: { $0.twin == id && $0.key == key }) {
            state.announced.remove(at: index)
        }
        state.depth += 1
        announce()
        state.depth -= 1
    }
}

/// The guard on another object model (see ``StressTwinModel``): an ``ObservationController`` per observer, with the
/// model's backend, observing the twins of the harness's objects.
public struct MirroredGuardTarget<Model: StressTwinModel>: SystemUnderTest {
    /// The model's name.
    public var name: String { model.name }
    /// The guard promises exact results, linearizability and nothing delivered after removal.
    public let promisesGuardSemantics = true
    /// A bulk removal releases its registrations in the order they were made, whatever the backend.
    public let releasesInRegistrationOrder = true
    /// Twins have the stored keys and `sum` only: operations on the other keys are skipped.
    public let observableKeys = Set(StressKey.classic)
    /// Where the controllers' diagnostics go.
    public let diagnostics: any DiagnosticSink
    private let model: Model
    private let twins: TwinTable<Model>

    /// Creates the target; diagnostics of every controller go to `diagnostics`.
    public init(model: Model, diagnostics: any DiagnosticSink) {
        self.model = model
        self.diagnostics = diagnostics
        self.twins = TwinTable(model: model)
    }

    /// An ``ObservationController`` with the model's backend for `observer`, wrapped for the harness (its
    /// diagnostics go to the target's sink: calls on twins are not matched with the harness's call sites).
    public func makeController(
        for observer: StressObserver, retainsObjects: Bool, diagnostics runDiagnostics: any DiagnosticSink
    ) -> any StressController {
        MirroredGuardController(
            controller: ObservationController(
                observer: observer, retainsObservedObjects: retainsObjects, backend: model.makeBackend(),
                diagnosticSink: diagnostics),
            twins: twins)
    }
}

/// Adapts a controller observing twins to ``StressController``: calls go to the twin of the stress object,
/// deliveries come back with the stress object.
final class MirroredGuardController: StressController, @unchecked Sendable {
    private let controller: ObservationController<StressObserver>
    private let twins: any TwinProviding

    init(controller: ObservationController<StressObserver>, twins: any TwinProviding) {
        self.controller = controller
        self.twins = twins
    }

    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall
    ) -> ObserveOutcome {
        let source = UncheckedWeak(object)
        return ObserveOutcome(
            controller.observe(object: twins.twin(of: object), keyPath: keyPath, options: options) {
                observer, _, change in
                guard let object = source.value else { return }
                sink.deliver(observer: observer, object: object, change: change)
            })
    }

    func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
        UnobserveOutcome(controller.unobserve(twins.twin(of: object), keyPath: keyPath))
    }

    func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome {
        UnobserveOutcome(controller.unobserve(twins.twin(of: object)))
    }

    func unobserveAll(call: StressCall) -> Int? {
        controller.unobserveAll()
    }
}

protocol TwinProviding: Sendable {
    func twin(of object: StressObject) -> AnyObject
}

/// The twin of each stress object, made on first use. A twin lives as long as its stress object (or longer, if a
/// controller holds it strongly): the mirroring registration on the stress object is held weakly and its handler
/// owns the twin, so both go when the stress object does.
final class TwinTable<Model: StressTwinModel>: TwinProviding, @unchecked Sendable {
    /// Owns the mirroring controller of one stress object; the controller's observer.
    final class Mirror: Sendable {
        let twin: UncheckedWeak<AnyObject>
        let source: UncheckedWeak<StressObject>

        init(twin: AnyObject, source: StressObject) {
            self.twin = UncheckedWeak(twin)
            self.source = UncheckedWeak(source)
        }
    }

    private struct Entry {
        let mirror: Mirror
        let controller: ObservationController<Mirror>
    }

    private let model: Model
    private let lock = Lock()
    private var entries: [ObjectIdentifier: Entry] = [:]
    private var sweepThreshold = 64

    init(model: Model) {
        self.model = model
    }

    func twin(of object: StressObject) -> AnyObject {
        let id = ObjectIdentifier(object)
        if let twin = lock.withLock({ current(entries[id], for: object) }) { return twin }
        let (entry, twin) = makeEntry(for: object)
        let (winner, replaced) = lock.withLock { () -> (AnyObject, [Entry]) in
            if let existing = current(entries[id], for: object) { return (existing, [entry]) }
            var replaced = entries[id].map { [$0] } ?? []
            entries[id] = entry
            if entries.count > sweepThreshold {
                let live = entries.filter { $0.value.mirror.source.value != nil }
                replaced += entries.values.filter { $0.mirror.source.value == nil }
                entries = live
                sweepThreshold = max(64, entries.count * 2)
            }
            return (twin, replaced)
        }
        // Entries that lost the race or whose object is gone are released outside the lock.
        withExtendedLifetime(replaced) {}
        return winner
    }

    /// Lock held. The twin of `entry` if it is `object`'s and still alive.
    private func current(_ entry: Entry?, for object: StressObject) -> AnyObject? {
        guard let entry, entry.mirror.source.value === object else { return nil }
        return entry.mirror.twin.value
    }

    /// A twin and the registration that keeps it announcing `object`'s changes. Made outside the lock.
    private func makeEntry(for object: StressObject) -> (Entry, AnyObject) {
        let state = StressTwinState(source: object)
        let twin = model.makeTwin(reading: state)
        let mirror = Mirror(twin: twin, source: object)
        let controller = ObservationController(
            observer: mirror, retainsObservedObjects: false, backend: KVORuntimeBackend(),
            diagnosticSink: CountingSink(keepsEvents: false))
        let model = self.model
        let ownedTwin = UncheckedStrong(twin)
        for key in StressKey.stored {
            controller.observe(object, keyPath: key.name, options: [.prior, .old]) { _, object, change in
                let oldValue = change.oldValue(as: Int.self) ?? object.value(of: key)
                if change.isPrior {
                    state.announceWillChange(of: key, oldValue: oldValue) { model.willChange(key, of: ownedTwin.value) }
                } else {
                    state.announceDidChange(
                        of: key, oldValue: oldValue, willChange: { model.willChange(key, of: ownedTwin.value) },
                        { model.didChange(key, of: ownedTwin.value) })
                }
            }
        }
        return (Entry(mirror: mirror, controller: controller), twin)
    }
}

/// A strong reference carried into a `@Sendable` handler (the handler owns it).
struct UncheckedStrong<Object: AnyObject>: @unchecked Sendable {
    let value: Object

    init(_ value: Object) {
        self.value = value
    }
}
