/// Makes a dependent key fire when the leaf of a dotted affecting key path changes, as Foundation does.
///
/// For `keyPathsForValuesAffectingValue(forKey: "summary") == ["account.balance"]`, the table announces a change of
/// the *key path* `account.balance` to `summary`'s observers. One relay per object and affecting key path observes
/// `account.balance` (with `.prior`, so it follows `account` and every account it is re-wired to) and turns each
/// prior / change pair into a `willChange` / `didChange` of `account.balance` on the object, which notifies every
/// key path that depends on it, once. The table starts a relay when a dependent key path is registered and none is
/// installed (several registering threads may each start one; the table installs one and the others are dropped),
/// and stops it when the last dependent goes.
///
/// Only the installed relay begins changes (a candidate that lost, or one already stopped, stays silent), and a relay
/// never joins a change already under way when it was registered: it reads the dependent values itself, and a change
/// whose new value is stored has no old value left to read.
final class DependencyRelay: KeyValueObserver, ObservanceEventListener, @unchecked Sendable {
    private weak var root: KVOObject?
    private let affectingKeyPath: String
    private let installed = AtomicCell()

    /// Whether this is the relay its table keeps for its key path (set under the table's lock).
    var isInstalled: Bool {
        get { installed.word.load(ordering: .acquiring) != 0 }
        set { installed.word.store(newValue ? 1 : 0, ordering: .releasing) }
    }

    private init(root: KVOObject, affectingKeyPath: String) {
        self.root = root
        self.affectingKeyPath = affectingKeyPath
    }

    /// Registers a relay for `affectingKeyPath` on `root` and hands it to `table`, which keeps it (and the relay
    /// object) while some registered key path depends on `affectingKeyPath`.
    static func start(for affectingKeyPath: String, on root: KVOObject, in table: ObservationTable) {
        let relay = DependencyRelay(root: root, affectingKeyPath: affectingKeyPath)
        guard
            let registration = root.register(
                relay, forKeyPath: affectingKeyPath, options: [.prior], context: nil, dropsWithObject: true,
                isGuarded: true, joinsChangesUnderWay: false)
        else { return }
        if !table.installRelay(registration, keeping: relay, for: affectingKeyPath) {
            root.unregister(registration)
        }
    }

    func observeValue(
        forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
    ) {
        guard let root else { return }
        if change.isPrior {
            guard isInstalled else { return }
            ManualChanges.willChange(object: root, key: affectingKeyPath, kind: .setting, indexes: nil)
        } else {
            // Not gated: it ends the change this relay began on this thread, if any, even if the relay was stopped
            // meanwhile (an unmatched end is ignored).
            ManualChanges.didChange(object: root, key: affectingKeyPath, reportsUnpaired: false)
        }
    }

    func observedObjectDidDeinit() {}
    func observedKeyPathBecameUnavailable() {}
}
