import FaultInjector
import GuardCore

/// A planted bug for the `.initial` + unobserve-inside-the-callback race (DESIGN.md section 5.2, radar 34307466,
/// FBKVOController #57): a minimal guard-like controller straight over GuardCore's runtime, correct in everything
/// but the `.initial` pending / cancelled handling, which it lacks.
///
/// It deduplicates by (object, key path), reports exact results, removes its registrations on teardown and calls
/// the runtime outside its lock. But it files a registration as live before the runtime has it, and lets the
/// runtime deliver `.initial` (which the runtime does before it inserts the registration, as Foundation does). An
/// unobserve from inside that initial callback, or from another thread while the add runs, takes the entry out and
/// asks the runtime to remove what it does not have yet (misuse `notRegistered`, Foundation's `NSRangeException`);
/// the registration the runtime then inserts is never removed. The real guard keeps such a registration `pending`
/// and turns the unobserve into a `cancelled` state that the observing thread resolves once the add returns.
struct InitialStateMissing: SystemUnderTest {
    let name = "initial-state-missing"
    let promisesGuardSemantics = true

    func makeController(for observer: StressObserver, retainsObjects: Bool) -> any StressController {
        Controller(observer: observer)
    }

    /// The runtime-side observer of one registration: forwards to the harness's sink while the observer lives.
    final class Bridge: KeyValueObserver, @unchecked Sendable {
        private weak var observer: StressObserver?
        private let sink: DeliverySink

        init(observer: StressObserver, sink: DeliverySink) {
            self.observer = observer
            self.sink = sink
        }

        func observeValue(
            forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
        ) {
            guard let observer, let object = object as? StressObject else { return }
            sink.deliver(observer: observer, object: object, change: change)
        }
    }

    final class Controller: StressController, @unchecked Sendable {
        private struct Key: Hashable {
            let object: Int
            let keyPath: String
        }

        private struct Entry {
            let object: StressObject
            let keyPath: String
            let bridge: Bridge
        }

        private weak var observer: StressObserver?
        private let lock = Lock()
        private var entries: [Key: Entry] = [:]
        private var removed: Set<Key> = []

        init(observer: StressObserver) {
            self.observer = observer
        }

        deinit {
            for entry in entries.values { entry.object.removeObserver(entry.bridge, forKeyPath: entry.keyPath) }
        }

        func observe(
            _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink
        ) -> ObserveOutcome {
            guard let observer else { return .invalid }
            let key = Key(object: object.id, keyPath: keyPath)
            let entry = Entry(object: object, keyPath: keyPath, bridge: Bridge(observer: observer, sink: sink))
            let reserved = lock.withLock { () -> Bool in
                guard entries[key] == nil else { return false }
                entries[key] = entry
                removed.remove(key)
                return true
            }
            guard reserved else { return .duplicate }
            // The planted bug: no pending state. The entry already counts as registered, and the runtime's
            // `.initial` notification arrives before its registration exists.
            object.addObserver(entry.bridge, forKeyPath: keyPath, options: options)
            return .registered
        }

        func unobserve(_ object: StressObject, keyPath: String) -> UnobserveOutcome {
            let key = Key(object: object.id, keyPath: keyPath)
            let (entry, wasRemoved) = lock.withLock { () -> (Entry?, Bool) in
                guard let entry = entries.removeValue(forKey: key) else { return (nil, removed.contains(key)) }
                removed.insert(key)
                return (entry, true)
            }
            guard let entry else { return wasRemoved ? .alreadyRemoved : .notRegistered }
            object.removeObserver(entry.bridge, forKeyPath: keyPath)
            return .removed
        }

        func unobserve(_ object: StressObject) -> UnobserveOutcome {
            let taken = lock.withLock { () -> [Entry] in
                let keys = entries.keys.filter { $0.object == object.id }
                for key in keys { removed.insert(key) }
                return keys.compactMap { entries.removeValue(forKey: $0) }
            }
            for entry in taken { object.removeObserver(entry.bridge, forKeyPath: entry.keyPath) }
            return taken.isEmpty ? .notRegistered : .removed
        }

        func unobserveAll() {
            let taken = lock.withLock { () -> [Entry] in
                for key in entries.keys { removed.insert(key) }
                defer { entries = [:] }
                return Array(entries.values)
            }
            for entry in taken { entry.object.removeObserver(entry.bridge, forKeyPath: entry.keyPath) }
        }
    }
}
