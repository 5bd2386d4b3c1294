/// The life of one guard registration. Transitions happen under the controller's lock, except the two that race
/// with it, which are compare-and-exchanges: `pending → active` by the observing thread once the backend add
/// returned, and `pending → cancelled` by a removal under the lock. Deliveries read the state without the lock.
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
struct RegistrationState {
    enum Value: UInt8 {
        case pending, active, cancelled, removed
    }

    /// The atomic word the state lives in (inline in its registration); zero is `pending`.
    let storage: AtomicWord
    /// The registration, as an explorer of interleavings knows the word (every access is announced to
    /// ``SchedulePoints/access(_:_:_:)``; see ``SharedWord/registrationState``).
    let owner: ObjectIdentifier

    var value: Value {
        SchedulePoints.access(owner, .registrationState, .read)
        return Value(rawValue: UInt8(truncatingIfNeeded: storage.load(ordering: .acquiring)))!
    }

    func set(_ value: Value) {
        SchedulePoints.access(owner, .registrationState, .write)
        storage.store(UInt64(value.rawValue), ordering: .releasing)
    }

    /// Moves to `desired` if the state is `expected`; returns whether it did.
    func transition(from expected: Value, to desired: Value) -> Bool {
        let exchanged = storage.compareExchange(
            expected: UInt64(expected.rawValue), desired: UInt64(desired.rawValue)).exchanged
        SchedulePoints.access(owner, .registrationState, exchanged ? .write : .read)
        return exchanged
    }

    /// Whether a notification may reach the handler now.
    var delivers: Bool {
        SchedulePoints.access(owner, .registrationState, .read)
        let current = storage.load(ordering: .acquiring)
        return current == UInt64(Value.pending.rawValue) || current == UInt64(Value.active.rawValue)
    }
}
