import Foundation
import GuardCore

// A model of Foundation's NSObject key-value observing, so the platform-free half of the NSObject backend
// (TrampolineBackend, TrampolineRegistration, ObservedObjectSentinel, the change-dictionary conversion) runs under the
// same conformance suite on Linux as GuardCore's runtime. It keeps Foundation's contract as documented for iOS 11+ /
// macOS 10.13+, the platforms KVOGuard supports:
//
// - observers are not retained (held weakly here, so a message to a freed observer is detected and recorded instead
//   of crashing); the observers of a change are retained, under the lock that guards the registrations, for the
//   duration of its callouts;
// - `.initial` is delivered from inside `addObserver`; `.prior` before the change with `notificationIsPrior` and the
//   old value; change dictionaries hold `NSNumber` kinds, `NSNull` for nil and `NSIndexSet` indexes;
// - prior notifications go to the observers oldest registration first, change notifications newest first (Foundation
//   pops the pending notifications its prior pass pushed);
// - `removeObserver(_:forKeyPath:context:)` of a registration that does not exist raises `NSRangeException`
//   (recorded here);
// - an autonotifying object deallocated with observers attached drops them silently, then releases its associated
//   objects.
//
// Every would-be exception is recorded in `SimulatedFoundation.misuses`; the suite asserts it stays empty.

/// What the simulated Foundation calls on an observer.
protocol SimulatedObserving: AnyObject {
    func observeValue(
        forKeyPath keyPath: String, of object: SimulatedKVOObject, change: [String: Any],
        context: UnsafeMutableRawPointer?)
}

/// The process-wide record of what real Foundation would have raised on.
enum SimulatedFoundation {
    private static let recorded = Protected<[String]>([])

    static func record(_ misuse: String) {
        recorded.withValue { $0.append(misuse) }
    }

    /// Everything recorded since the last ``reset()``.
    static var misuses: [String] { recorded.current }

    static func reset() {
        recorded.withValue { $0 = [] }
    }
}

/// A simulated `NSObject`: observation info and associated objects. Subclasses provide keys through
/// ``value(forKey:)`` and ``knowsKey(_:)``, and announce changes with ``change(_:kind:indexes:apply:)``.
class SimulatedKVOObject: @unchecked Sendable {
    private struct Observance {
        weak var observer: (any SimulatedObserving)?
        let observerID: ObjectIdentifier
        let keyPath: String
        let options: KeyValueObservingOptions
        let context: UnsafeMutableRawPointer?
    }

    private let lock = NSLock()
    private var observances: [Observance] = []
    private var associations: [UnsafeRawPointer: AnyObject] = [:]
    private var deallocating = false

    init() {}

    deinit {
        // Foundation (iOS 11+, autonotifying objects): observation info goes first, silently; associated objects are
        // released last, when nothing can call an observer of this object any more.
        let associated = lock.withLock { () -> [UnsafeRawPointer: AnyObject] in
            deallocating = true
            observances = []
            defer { associations = [:] }
            return associations
        }
        withExtendedLifetime(associated) {}
    }

    // MARK: Subclass hooks

    /// The value of `key` (key-value coding).
    func value(forKey key: String) -> Any? { nil }

    /// Whether `key` is key-value coding compliant.
    func knowsKey(_ key: String) -> Bool { false }

    // MARK: NSObject's API

    func addObserver(
        _ observer: any SimulatedObserving, forKeyPath keyPath: String, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer?
    ) {
        guard checkAlive("addObserver(_:forKeyPath:options:context:)") else { return }
        let observance = Observance(
            observer: observer, observerID: ObjectIdentifier(observer), keyPath: keyPath, options: options,
            context: context)
        lock.withLock { observances.append(observance) }
        guard options.contains(.initial) else { return }
        var change: [String: Any] = ["kind": NSNumber(value: KeyValueChange.Kind.setting.rawValue)]
        if options.contains(.new) { change["new"] = Self.foundationValue(value(forKey: keyPath)) }
        observer.observeValue(forKeyPath: keyPath, of: self, change: change, context: context)
    }

    func removeObserver(_ observer: any SimulatedObserving, forKeyPath keyPath: String, context: UnsafeMutableRawPointer?) {
        guard checkAlive("removeObserver(_:forKeyPath:context:)") else { return }
        let id = ObjectIdentifier(observer)
        let removed = lock.withLock { () -> Bool in
            guard
                let index = observances.lastIndex(where: {
                    $0.observerID == id && $0.keyPath == keyPath && $0.context == context
                })
            else { return false }
            observances.remove(at: index)
            return true
        }
        if !removed {
            SimulatedFoundation.record(
                "NSRangeException: Cannot remove an observer \(observer) for the key path \"\(keyPath)\" from \(self) "
                    + "because it is not registered as an observer.")
        }
    }

    func associatedObject(for key: UnsafeRawPointer) -> AnyObject? {
        lock.withLock { associations[key] }
    }

    func setAssociatedObject(_ object: AnyObject?, for key: UnsafeRawPointer) {
        let previous = lock.withLock { () -> AnyObject? in
            let previous = associations[key]
            associations[key] = object
            return previous
        }
        withExtendedLifetime(previous) {}
    }

    /// Registrations Foundation holds on this object.
    var observanceCount: Int {
        lock.withLock { observances.count }
    }

    // MARK: Announcing changes

    /// `willChangeValue` / `apply` / `didChangeValue` for `key`, with Foundation's dictionaries. Observers are
    /// retained from the snapshot until the callout ends; a freed observer is recorded (a crash in Foundation).
    func change(_ key: String, kind: KeyValueChange.Kind = .setting, indexes: IndexSet? = nil, apply: () -> Void) {
        // Foundation (iOS 11+) retains the observers of a change while it holds its lock (the frame
        // KVO_IS_RETAINING_ALL_OBSERVERS_OF_THIS_OBJECT_IF_IT_CRASHES_AN_OBSERVER_WAS_OVERRELEASED_OR_SMASHED in crash
        // logs), so an observer removed on another thread afterwards stays alive for this callout.
        let retained = lock.withLock { observances.filter { $0.keyPath == key }.map { ($0, $0.observer) } }
        let oldValue = kind == .insertion ? nil : value(forKey: key)
        for (observance, observer) in retained where observance.options.contains(.prior) {
            var change = base(kind: kind, indexes: indexes)
            change["notificationIsPrior"] = NSNumber(value: true)
            if observance.options.contains(.old) { change["old"] = Self.changedValue(oldValue, kind: kind, indexes: indexes) }
            notify(observer, observance, change)
        }
        apply()
        let newValue = kind == .removal ? nil : value(forKey: key)
        for (observance, observer) in retained.reversed() {
            var change = base(kind: kind, indexes: indexes)
            if observance.options.contains(.old), kind != .insertion {
                change["old"] = Self.changedValue(oldValue, kind: kind, indexes: indexes)
            }
            if observance.options.contains(.new), kind != .removal {
                change["new"] = Self.changedValue(newValue, kind: kind, indexes: indexes)
            }
            notify(observer, observance, change)
        }
    }

    /// `willChangeValueForKey:withSetMutation:usingObjects:` / `apply` / `didChangeValueForKey:withSetMutation:...`
    /// for the set property `key`, with Foundation's dictionaries: the kind the mutation maps to, the removed objects
    /// as `old` and the added ones as `new` (each where the kind has one), worked out against the value before.
    func changeSet(
        _ key: String, _ mutation: KeyValueSetMutationKind, using objects: Set<AnyHashable>, apply: () -> Void
    ) {
        let retained = lock.withLock { observances.filter { $0.keyPath == key }.map { ($0, $0.observer) } }
        let before = value(forKey: key) as? Set<AnyHashable> ?? []
        let (removed, added): (Set<AnyHashable>, Set<AnyHashable>)
        switch mutation {
        case .union: (removed, added) = ([], objects.subtracting(before))
        case .minus: (removed, added) = (before.intersection(objects), [])
        case .intersect: (removed, added) = (before.subtracting(objects), [])
        case .set: (removed, added) = (before.subtracting(objects), objects.subtracting(before))
        }
        let kind = mutation.changeKind
        func dictionary(isPrior: Bool, _ options: KeyValueObservingOptions) -> [String: Any] {
            var change: [String: Any] = ["kind": NSNumber(value: kind.rawValue)]
            if isPrior { change["notificationIsPrior"] = NSNumber(value: true) }
            if options.contains(.old), kind != .insertion { change["old"] = removed }
            if options.contains(.new), !isPrior, kind != .removal { change["new"] = added }
            return change
        }
        for (observance, observer) in retained where observance.options.contains(.prior) {
            notify(observer, observance, dictionary(isPrior: true, observance.options))
        }
        apply()
        for (observance, observer) in retained.reversed() {
            notify(observer, observance, dictionary(isPrior: false, observance.options))
        }
    }

    private func notify(_ observer: (any SimulatedObserving)?, _ observance: Observance, _ change: [String: Any]) {
        guard let observer else {
            SimulatedFoundation.record("message sent to a deallocated observer of \"\(observance.keyPath)\"")
            return
        }
        observer.observeValue(forKeyPath: observance.keyPath, of: self, change: change, context: observance.context)
    }

    private func base(kind: KeyValueChange.Kind, indexes: IndexSet?) -> [String: Any] {
        var change: [String: Any] = ["kind": NSNumber(value: kind.rawValue)]
        if let indexes, kind != .setting { change["indexes"] = NSIndexSet(indexSet: indexes) }
        return change
    }

    private func checkAlive(_ call: String) -> Bool {
        guard lock.withLock({ deallocating }) else { return true }
        SimulatedFoundation.record("\(call) sent to an object being deallocated")
        return false
    }

    /// For a to-many change, the elements at `indexes`; for a setting, the whole value; `NSNull` for nil.
    private static func changedValue(_ value: Any?, kind: KeyValueChange.Kind, indexes: IndexSet?) -> Any {
        guard kind != .setting, let indexes, let array = value as? [Any] else { return foundationValue(value) }
        return indexes.map { array[$0] }
    }

    private static func foundationValue(_ value: Any?) -> Any {
        guard let value else { return NSNull() }
        return value
    }
}

/// The simulated Foundation behind ``TrampolinePlatform``, as `NSObjectPlatform` puts the real one.
struct SimulatedPlatform: TrampolinePlatform {
    private nonisolated(unsafe) static let sentinelKey = UnsafeRawPointer(
        UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1))

    func canObserve(_ object: AnyObject, forKeyPath keyPath: String) -> Bool {
        guard let object = object as? SimulatedKVOObject, !keyPath.contains(".") else { return false }
        return object.knowsKey(keyPath)
    }

    func currentValue(of object: AnyObject, forKeyPath keyPath: String) -> Any? {
        guard let object = object as? SimulatedKVOObject, object.knowsKey(keyPath) else { return nil }
        return object.value(forKey: keyPath)
    }

    func sentinel(of object: AnyObject) -> ObservedObjectSentinel? {
        (object as? SimulatedKVOObject)?.associatedObject(for: Self.sentinelKey) as? ObservedObjectSentinel
    }

    func attach(_ sentinel: ObservedObjectSentinel, to object: AnyObject) {
        (object as? SimulatedKVOObject)?.setAssociatedObject(sentinel, for: Self.sentinelKey)
    }

    func makeTrampoline(forwardingTo registration: TrampolineRegistration) -> AnyObject {
        SimulatedTrampoline(registration: registration)
    }

    func addObserver(
        _ trampoline: AnyObject, to object: AnyObject, forKeyPath keyPath: String, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer
    ) {
        guard let object = object as? SimulatedKVOObject, let trampoline = trampoline as? SimulatedTrampoline else {
            return
        }
        object.addObserver(trampoline, forKeyPath: keyPath, options: options, context: context)
    }

    func removeObserver(
        _ trampoline: AnyObject, from object: AnyObject, forKeyPath keyPath: String, context: UnsafeMutableRawPointer
    ) {
        guard let object = object as? SimulatedKVOObject, let trampoline = trampoline as? SimulatedTrampoline else {
            return
        }
        object.removeObserver(trampoline, forKeyPath: keyPath, context: context)
    }
}

/// The simulated counterpart of `NSObjectTrampoline`: forwards Foundation's callback, dictionary and all.
final class SimulatedTrampoline: SimulatedObserving {
    private let registration: TrampolineRegistration

    init(registration: TrampolineRegistration) {
        self.registration = registration
    }

    func observeValue(
        forKeyPath keyPath: String, of object: SimulatedKVOObject, change: [String: Any],
        context: UnsafeMutableRawPointer?
    ) {
        registration.deliver(context: context, of: object) { change[$0.rawValue] }
    }
}
