import FaultInjector
import Foundation
import GuardCore

/// A lock a wrapper can be built with: FaultInjector's `ScheduledLock` under test, `NSLock` in an app.
protocol WrapperLock: AnyObject {
    func lock()
    func unlock()
}

extension ScheduledLock: WrapperLock {}
extension NSLock: WrapperLock {}

extension WrapperLock {
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A platform team's own observation wrapper over GuardCore's runtime, written with public API only: it serializes
/// every call with a lock of its own and holds it while it calls the runtime's `addObserver` / `removeObserver`
/// (never while it calls a handler, and never re-entering it), and, as the guard does, holds back a change that
/// arrives before an observe's `.initial` notification until right after it (delivered by the observing thread, with
/// the change's ``ChangeOrigin``). Correct; the lock it is built with decides whether the controlled runner can see
/// it.
struct SerializingWrapperTarget: SystemUnderTest {
    /// Which lock the wrapper serializes with.
    enum LockKind: String, Sendable {
        /// FaultInjector's `ScheduledLock`: announced to the controlled runner's scheduler.
        case scheduled
        /// Foundation's `NSLock`: invisible to the scheduler.
        case unannounced
    }

    let lockKind: LockKind
    /// Deliver notifications while holding the lock (a bug the `called-under-lock` check is for).
    var deliversUnderLock = false
    var name: String { "serializing-wrapper-\(lockKind.rawValue)" + (deliversUnderLock ? "-delivers-under-lock" : "") }
    let promisesGuardSemantics = true
    var observableKeys: Set<StressKey> { [.k0, .k1, .k2, .sum] }

    func makeController(
        for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
    ) -> any StressController {
        let lock: any WrapperLock =
            lockKind == .scheduled ? ScheduledLock(name: "SerializingWrapper.table") : NSLock()
        return Controller(observer: observer, lock: lock, deliversUnderLock: deliversUnderLock)
    }

    /// One registration with the runtime: the runtime's observer.
    final class Registration: KeyValueObserver, @unchecked Sendable {
        struct Key: Hashable {
            let object: Int
            let keyPath: String
        }

        let key: Key
        let object: StressObject
        let sink: DeliverySink
        weak var observer: StressObserver?
        /// The controller's lock.
        let lock: any WrapperLock
        let deliversUnderLock: Bool
        /// Guarded by `lock`.
        var live = true
        /// Whether changes wait for the `.initial` notification, and those that do. Guarded by `lock`.
        var holding = false
        var held: [(change: KeyValueChange, origin: ChangeOrigin)] = []

        init(
            key: Key, object: StressObject, observer: StressObserver, sink: DeliverySink, lock: any WrapperLock,
            deliversUnderLock: Bool
        ) {
            self.key = key
            self.object = object
            self.observer = observer
            self.sink = sink
            self.lock = lock
            self.deliversUnderLock = deliversUnderLock
        }

        func observeValue(
            forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
        ) {
            if deliversUnderLock {
                lock.withLock {
                    guard live, let observer else { return }
                    sink.deliver(observer: observer, object: self.object, change: change)
                }
                return
            }
            let origin = ChangeOrigin.current
            let deliversNow = lock.withLock { () -> Bool in
                if live, holding { held.append((change, origin)) }
                return live && !holding
            }
            guard deliversNow, let observer else { return }
            sink.deliver(observer: observer, object: self.object, change: change)
        }

        /// The observing thread, right after the initial notification: delivers what was held, in order, until
        /// nothing is left (then changes go straight to the handler); drops it once the registration is removed.
        func deliverHeld(to observer: StressObserver) {
            while true {
                let batch = lock.withLock { () -> [(change: KeyValueChange, origin: ChangeOrigin)] in
                    let batch = held
                    held = []
                    if batch.isEmpty || !live { holding = false }
                    return live ? batch : []
                }
                guard !batch.isEmpty else { return }
                for (change, origin) in batch where lock.withLock({ live }) {
                    origin.deliver { sink.deliver(observer: observer, object: object, change: change) }
                }
            }
        }
    }

    final class Controller: StressController, @unchecked Sendable {
        private weak var observer: StressObserver?
        private let lock: any WrapperLock
        private let deliversUnderLock: Bool
        private var table: [Registration.Key: Registration] = [:]
        private var removed: Set<Registration.Key> = []

        init(observer: StressObserver, lock: any WrapperLock, deliversUnderLock: Bool) {
            self.observer = observer
            self.lock = lock
            self.deliversUnderLock = deliversUnderLock
        }

        deinit {
            let all = lock.withLock { () -> [Registration] in
                let all = Array(table.values)
                table = [:]
                for registration in all { remove(registration) }
                return all
            }
            _ = all  // released after the lock
        }

        /// Takes `registration` out of the runtime. Lock held.
        private func remove(_ registration: Registration) {
            registration.live = false
            registration.object.removeObserver(registration, forKeyPath: registration.key.keyPath, context: nil)
        }

        func observe(
            _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink,
            call: StressCall
        ) -> ObserveOutcome {
            guard let observer else { return .invalid }
            let key = Registration.Key(object: object.id, keyPath: keyPath)
            let holds = options.contains(.initial) && !deliversUnderLock
            let registered = lock.withLock { () -> Registration? in
                guard table[key] == nil else { return nil }
                let registration = Registration(
                    key: key, object: object, observer: observer, sink: sink, lock: lock,
                    deliversUnderLock: deliversUnderLock)
                registration.holding = holds
                table[key] = registration
                object.addObserver(registration, forKeyPath: keyPath, options: options.subtracting(.initial), context: nil)
                return registration
            }
            guard let registered else { return .duplicate }
            if options.contains(.initial) {
                let value = options.contains(.new) ? object.value(forKeyPath: keyPath) : nil
                sink.deliver(
                    observer: observer, object: object, change: KeyValueChange(kind: .setting, keyPath: keyPath, newValue: value))
                if holds { registered.deliverHeld(to: observer) }
            }
            return .registered
        }

        func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
            let key = Registration.Key(object: object.id, keyPath: keyPath)
            let (taken, outcome) = lock.withLock { () -> (Registration?, UnobserveOutcome) in
                guard let registration = table.removeValue(forKey: key) else {
                    return (nil, removed.contains(key) ? .alreadyRemoved : .notRegistered)
                }
                removed.insert(key)
                remove(registration)
                return (registration, .removed)
            }
            _ = taken  // released after the lock
            return outcome
        }

        func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome {
            let (taken, outcome) = lock.withLock { () -> ([Registration], UnobserveOutcome) in
                let mine = table.values.filter { $0.key.object == object.id }
                guard !mine.isEmpty else {
                    return ([], removed.contains { $0.object == object.id } ? .alreadyRemoved : .notRegistered)
                }
                for registration in mine {
                    table[registration.key] = nil
                    removed.insert(registration.key)
                    remove(registration)
                }
                return (mine, .removed)
            }
            _ = taken
            return outcome
        }

        func unobserveAll(call: StressCall) -> Int? {
            let taken = lock.withLock { () -> [Registration] in
                let all = Array(table.values)
                table = [:]
                for registration in all {
                    removed.insert(registration.key)
                    remove(registration)
                }
                return all
            }
            return taken.count
        }

        func registrationCount() -> Int? { lock.withLock { table.count } }

        func isObserving(_ object: StressObject, keyPath: String) -> Bool? {
            lock.withLock { table[Registration.Key(object: object.id, keyPath: keyPath)] != nil }
        }

        func observedKeyPaths(of object: StressObject) -> [String]? {
            lock.withLock { table.values.filter { $0.key.object == object.id }.map(\.key.keyPath).sorted() }
        }
    }
}
