/// Carries changes from deeper objects of a dotted key path back to the observance on the root object.
///
/// For `"account.balance"` observed on a person, the person's observance is triggered by `account` itself, and a
/// forwarder observes `"balance"` on the current account. When `account` is replaced, ``rewire(_:of:)`` moves the
/// forwarder to the new account, so the old chain goes silent and the new one is live. Longer paths nest.
final class KeyPathForwarder: KeyValueObserver, @unchecked Sendable {
    private weak var root: KVOObject?
    private weak var rootObservance: Observance?
    private weak var target: KVOObject?
    private let targetIdentity: ObjectIdentifier
    /// The forwarder's own registration on the target; set once, before the forwarder is attached.
    private var targetObservance: Observance?

    private init(root: KVOObject, rootObservance: Observance, target: KVOObject) {
        self.root = root
        self.rootObservance = rootObservance
        self.target = target
        self.targetIdentity = ObjectIdentifier(target)
    }

    /// Points the forwarder of a dotted `observance` on `root` at the object currently at its first key, if that
    /// changed. Safe to call at any time; a removed observance gets no new forwarder.
    static func rewire(_ observance: Observance, of root: KVOObject) {
        guard let table = root.existingTable, let dot = observance.keyPath.firstIndex(of: ".") else { return }
        let firstKey = String(observance.keyPath[..<dot])
        let remainingPath = String(observance.keyPath[observance.keyPath.index(after: dot)...])
        let newTarget = root.value(forKey: firstKey) as? KVOObject
        if let current = table.forwarder(of: observance), let newTarget,
            current.targetIdentity == ObjectIdentifier(newTarget), current.target != nil
        {
            return
        }
        table.detachForwarder(of: observance)?.detach()
        guard observance.isActive, let newTarget else { return }
        let forwarder = KeyPathForwarder(root: root, rootObservance: observance, target: newTarget)
        guard
            let registration = newTarget.register(
                forwarder, forKeyPath: remainingPath, options: observance.options.subtracting(.initial),
                context: nil, dropsWithObject: true, onObjectDeinit: nil,
                reportsUnknownKey: !observance.dropsWithObject)
        else { return }
        forwarder.targetObservance = registration
        if !table.attach(forwarder, to: observance) {
            forwarder.detach()
        }
    }

    /// Unregisters the forwarder from its target.
    func detach() {
        guard let target, let targetObservance else { return }
        target.unregister(targetObservance)
    }

    func observeValue(
        forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
    ) {
        guard let root, let rootObservance else { return }
        let relayed = KeyValueChange(
            kind: change.kind, keyPath: rootObservance.keyPath, newValue: change.newValue,
            oldValue: change.oldValue, indexes: change.indexes, isPrior: change.isPrior)
        rootObservance.deliver(relayed, from: root)
    }
}
