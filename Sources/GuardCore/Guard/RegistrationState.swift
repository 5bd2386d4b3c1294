import Synchronization

/// The life of one guard registration. Transitions happen under the controller's lock; deliveries read the state
/// without it.
///
/// ```
/// pending ──(backend add returned)──▶ active ──(unobserve / teardown)──▶ removed
///    │
///    └──(unobserve while the backend add is still running, e.g. inside the .initial handler)──▶ cancelled
///              ──(the observing thread then removes it from the backend)──▶ removed
/// ```
///
/// Notifications are delivered only in `pending` (the `.initial` one, and changes racing with the add) and
/// `active`. This is the three-state flag FBKVOController keeps unsynchronised, here atomic.
struct RegistrationState: ~Copyable, Sendable {
    enum Value: UInt8 {
        case pending, active, cancelled, removed
    }

    private let storage = Atomic<UInt8>(Value.pending.rawValue)

    var value: Value {
        Value(rawValue: storage.load(ordering: .acquiring))!
    }

    func set(_ value: Value) {
        storage.store(value.rawValue, ordering: .releasing)
    }

    /// Whether a notification may reach the handler now.
    var delivers: Bool {
        let current = storage.load(ordering: .acquiring)
        return current == Value.pending.rawValue || current == Value.active.rawValue
    }
}
