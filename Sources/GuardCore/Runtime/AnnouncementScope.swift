/// The key paths one change announces on one thread, across the changes the dependent keys' relays begin for it, so
/// a key path that several declared dependencies lead to is notified once per change, as in Foundation.
///
/// With `both` declared to depend on `child.t1` and `child.t2`, a change of `child` reaches two relays (one per
/// dotted key path, see ``DependencyRelay``), and each begins a change that announces `both`. The change of `child`
/// opens a scope while it sends its prior notifications; every change a relay begins meanwhile on the same thread
/// joins that scope and *claims* each key path it would announce on its object: the first claim wins, and the other
/// relays' changes leave that key path out, prior notification and change alike. The same holds however deep the
/// shared prefix (`a.b.c` and `a.b.d` when `b` changes on the object at `a`), for dependencies of dependencies (a key
/// path depending on `both` is announced where `both` is), and for a key path announced both directly and through a
/// relay (`both` depending on `child` and on `child.t1`).
///
/// A change an application begins (a setter, `willChangeValue`) opens a scope of its own only when its observances
/// lead to a relay (a relay's registration, or a forwarder whose chain ends at one), so the common change touches no
/// thread-local state. Changes that are not relayed never join a scope: two pairs of `willChangeValue` /
/// `didChangeValue` nested by an application, even for one key, are two changes and notify twice.
final class AnnouncementScope {
    /// One key path of one object. The table stands for its object (each object keeps its own table for life), and is
    /// held so that its address, which identifies the object here, cannot be reused while the scope lives.
    private struct Claim {
        let table: ObservationTable
        let hash: UInt64
        let keyPath: String

        func isFor(_ table: ObservationTable, _ keyPath: String, hash: UInt64) -> Bool {
            self.table === table && self.hash == hash && self.keyPath.isSameKey(as: keyPath)
        }
    }

    /// Key paths announced (prior notification sent, change due) in this scope.
    private var announced: [Claim] = []
    /// Key paths whose late joiners (see ``ChangePlan``) some change of this scope notified.
    private var lateAnnounced: [Claim] = []

    private final class Slot {
        var current: AnnouncementScope?
    }

    private static let slot = ThreadLocal { Slot() }

    /// Claims the announcement of `keyPath` (whose ``KeyHash`` is `hash`) on the object whose table is `table`:
    /// `true` the first time in this scope, `false` once another change of the scope announces it.
    func claim(_ keyPath: String, hash: UInt64, on table: ObservationTable) -> Bool {
        Self.claim(keyPath, hash: hash, on: table, in: &announced)
    }

    /// Claims the notification of late joiners of `keyPath` on the object whose table is `table`, as ``claim(_:hash:on:)``.
    func claimLateJoiners(of keyPath: String, hash: UInt64, on table: ObservationTable) -> Bool {
        Self.claim(keyPath, hash: hash, on: table, in: &lateAnnounced)
    }

    private static func claim(_ keyPath: String, hash: UInt64, on table: ObservationTable, in claims: inout [Claim]) -> Bool {
        if claims.contains(where: { $0.isFor(table, keyPath, hash: hash) }) { return false }
        claims.append(Claim(table: table, hash: hash, keyPath: keyPath))
        return true
    }

    /// The scope the calling thread is sending prior notifications in, if any.
    static var current: AnnouncementScope? {
        slot.valueIfCreated?.current
    }

    /// Runs `body` with `scope` as the calling thread's current scope, then restores the one before.
    static func entering<Result>(_ scope: AnnouncementScope, _ body: () -> Result) -> Result {
        let slot = self.slot.value
        let outer = slot.current
        slot.current = scope
        defer { slot.current = outer }
        return body()
    }
}
