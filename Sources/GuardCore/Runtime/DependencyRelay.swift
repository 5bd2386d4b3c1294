/// Makes a dependent key fire when the leaf of a dotted affecting key path changes, as Foundation does.
///
/// For `keyPathsForValuesAffectingValue(forKey: "summary") == ["account.balance"]`, the table announces a change of
/// the *key path* `account.balance` to `summary`'s observers. One relay per object and affecting key path observes
/// `account.balance` (with `.prior`, so it follows `account` and every account it is re-wired to) and turns each
/// prior / change pair into a `willChange` / `didChange` of `account.balance` on the object, which notifies every
/// key path that depends on it, once. The table starts a relay when the first dependent key path is registered and
/// stops it when the last one goes. The relay's registration holds the relay; the relay holds its object weakly.
final class DependencyRelay: ObservationReceiver, @unchecked Sendable {
    private weak var root: KVOObject?
    private let affectingKeyPath: String

    private init(root: KVOObject, affectingKeyPath: String) {
        self.root = root
        self.affectingKeyPath = affectingKeyPath
    }

    /// Registers a relay for `affectingKeyPath` on `root` and hands its registration to `table`, which keeps it
    /// while some registered key path depends on `affectingKeyPath`.
    static func start(for affectingKeyPath: String, on root: KVOObject, in table: ObservationTable) {
        let relay = DependencyRelay(root: root, affectingKeyPath: affectingKeyPath)
        guard
            let registration = root.register(
                relay, forKeyPath: affectingKeyPath, options: [.prior], context: nil, dropsWithObject: true,
                isGuarded: true)
        else { return }
        if !table.installRelay(registration, for: affectingKeyPath) {
            root.unregister(registration)
        }
    }

    func receive(_ change: KeyValueChange, of object: AnyObject) {
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
