/// The changes one controller holds back for its registrations whose `.initial` notification is still to be
/// delivered (see ``RegistrationState/holdsChanges``), in the order they arrived. Guarded by the controller's lock.
///
/// Empty almost always: a change is held only when it races an `observe` with `.initial` (or its initial handler sets
/// the property), and the observing thread takes its registration's changes out before that `observe` returns. It
/// holds no registration, only its identity: every registration that holds changes is alive until its observing
/// thread has taken them out.
struct HeldChanges {
    /// One change held back.
    struct Entry {
        /// The registration it is for.
        let registration: ObjectIdentifier
        let change: KeyValueChange
        /// What the installed ``HeldChangeTracer`` said about the thread that made it (0 with none installed).
        let origin: UInt64
    }

    private var entries: ContiguousArray<Entry> = []

    /// Keeps `change` for `registration`.
    mutating func append(_ change: KeyValueChange, for registration: GuardRegistration, origin: UInt64) {
        entries.append(Entry(registration: ObjectIdentifier(registration), change: change, origin: origin))
    }

    /// Takes out the changes held for `registration`, in the order they arrived. The caller releases them after
    /// unlocking (a change holds the user's values).
    mutating func take(of registration: GuardRegistration) -> ContiguousArray<Entry> {
        guard !entries.isEmpty else { return [] }
        let id = ObjectIdentifier(registration)
        if entries.allSatisfy({ $0.registration == id }) {
            defer { entries = [] }
            return entries
        }
        var taken: ContiguousArray<Entry> = []
        var kept: ContiguousArray<Entry> = []
        for entry in entries {
            if entry.registration == id { taken.append(entry) } else { kept.append(entry) }
        }
        entries = kept
        return taken
    }
}
