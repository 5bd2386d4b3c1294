/// Makes a dependent key fire when the leaf of a dotted affecting key path changes, as Foundation does.
///
/// For `keyPathsForValuesAffectingValue(forKey: "summary") == ["account.balance"]`, the table announces a change of
/// the *key path* `account.balance` to `summary`'s observers. One relay per object and affecting key path observes
/// `account.balance` (with `.prior`, so it follows `account` and every account it is re-wired to) and turns each
/// prior / change pair into a `willChange` / `didChange` of `account.balance` on the object, which notifies every
/// key path that depends on it, once. The table starts a relay when the first dependent key path is registered and
/// stops it when the last one goes.
final class DependencyRelay: KeyValueObserver, ObservanceEventListener, @unchecked Sendable {
    private weak var root: KVOObject?
    private let affectingKeyPath: String

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
                isGuarded: true)
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
            ManualChanges.willChange(object: root, key: affectingKeyPath, kind: .setting, indexes: nil)
        } else {
            ManualChanges.didChange(object: root, key: affectingKeyPath, reportsUnpaired: false)
        }
    }

    func observedObjectDidDeinit() {}
    func observedKeyPathBecameUnavailable() {}
}
