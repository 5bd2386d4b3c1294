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
/// Notifications are delivered only in `pending` (changes racing with the add) and `active`. This is the three-state
/// flag FBKVOController keeps unsynchronised, here atomic.
///
/// A registration made with `.initial` also *holds changes* from the start until its initial notification, and every
/// change held back meanwhile, have been delivered (a flag beside the state, cleared once under the controller's
/// lock): a change that reaches it while the flag is set is kept for the observing thread (see
/// ``ControllerCore``), so the handler never hears a change before its initial notification. A registration without
/// the flag in `pending` or `active` (the common case) is one word compared with `active`.
struct RegistrationState {
    enum Value: UInt8 {
        case pending, active, cancelled, removed
    }

    /// The bits of the word that hold the ``Value``.
    private static let valueBits: UInt64 = 0b11
    /// The bit set while the registration holds changes back.
    private static let holdsChangesBit: UInt64 = 0b100

    /// The atomic word the state lives in (inline in its registration); zero is `pending`, holding nothing.
    let storage: AtomicWord
    /// The registration, as an explorer of interleavings knows the word (every access is announced to
    /// ``SchedulePoints/access(_:_:_:)``; see ``SharedWord/registrationState``).
    let owner: ObjectIdentifier

    var value: Value {
        SchedulePoints.access(owner, .registrationState, .read)
        return Value(rawValue: UInt8(truncatingIfNeeded: storage.load(ordering: .acquiring) & Self.valueBits))!
    }

    /// Sets `value` and clears the holding flag (a registration leaving for good holds nothing back any more).
    func set(_ value: Value) {
        SchedulePoints.access(owner, .registrationState, .write)
        storage.store(UInt64(value.rawValue), ordering: .releasing)
    }

    /// A new registration made with `.initial`, before anyone else can see it: `pending`, holding changes.
    func startHoldingChanges() {
        storage.store(UInt64(Value.pending.rawValue) | Self.holdsChangesBit, ordering: .relaxed)
    }

    /// Moves to `desired` if the state is `expected`, keeping the holding flag; returns whether it did.
    func transition(from expected: Value, to desired: Value) -> Bool {
        // First as if the flag were clear (the common case: one compare-and-exchange), then with the flag found.
        var current = UInt64(expected.rawValue)
        while current & Self.valueBits == UInt64(expected.rawValue) {
            let (exchanged, found) = storage.compareExchange(
                expected: current, desired: current & ~Self.valueBits | UInt64(desired.rawValue))
            if exchanged {
                SchedulePoints.access(owner, .registrationState, .write)
                return true
            }
            current = found
        }
        SchedulePoints.access(owner, .registrationState, .read)
        return false
    }

    /// Whether a notification may reach the handler now (directly, or by being held back for the observing thread).
    var delivers: Bool {
        SchedulePoints.access(owner, .registrationState, .read)
        let value = storage.load(ordering: .acquiring) & Self.valueBits
        return value == UInt64(Value.pending.rawValue) || value == UInt64(Value.active.rawValue)
    }

    /// The word as one load, for ``deliversDirectly(_:)`` and ``holdsChanges(_:)``.
    var word: UInt64 {
        SchedulePoints.access(owner, .registrationState, .read)
        return storage.load(ordering: .acquiring)
    }

    /// Whether `word` lets a change go to the handler at once: `pending` or `active`, holding nothing back.
    @inline(__always)
    static func deliversDirectly(_ word: UInt64) -> Bool {
        word <= UInt64(Value.active.rawValue)
    }

    /// Whether `word` holds changes back.
    @inline(__always)
    static func holdsChanges(_ word: UInt64) -> Bool {
        word & holdsChangesBit != 0
    }

    /// Whether the registration holds changes back.
    var holdsChanges: Bool {
        Self.holdsChanges(word)
    }

    /// Clears the holding flag, keeping the value. Called once, under the controller's lock, by the observing thread.
    func stopHoldingChanges() {
        var current = storage.load(ordering: .relaxed)
        while Self.holdsChanges(current) {
            let (exchanged, found) = storage.compareExchange(expected: current, desired: current & ~Self.holdsChangesBit)
            if exchanged {
                SchedulePoints.access(owner, .registrationState, .write)
                return
            }
            current = found
        }
    }
}
