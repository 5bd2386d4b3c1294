import Foundation

extension KVOObject {
    /// Announces that the value for `key` is about to change: observers with `.prior` are notified now, and old
    /// values are captured. Must be paired with ``didChangeValue(forKey:)`` on the same thread; pairs may nest,
    /// also for different keys. Dependent key paths are announced too.
    public func willChangeValue(forKey key: String) {
        ManualChanges.willChange(object: self, key: key, kind: .setting, indexes: nil)
    }

    /// Announces that the value for `key` changed: observers are notified with the change begun by the matching
    /// ``willChangeValue(forKey:)``. Without one, this is the misuse ``KVOMisuse/Kind/unpairedDidChange``.
    public func didChangeValue(forKey key: String) {
        ManualChanges.didChange(object: self, key: key)
    }

    /// Announces that elements of the ordered to-many property `key` at `indexes` are about to be inserted,
    /// removed or replaced (`kind` must not be ``KeyValueChange/Kind/setting``). Pair it with
    /// ``didChange(_:valuesAt:forKey:)``. Observers receive the kind and indexes; old values are the removed or
    /// replaced elements.
    public func willChange(_ kind: KeyValueChange.Kind, valuesAt indexes: IndexSet, forKey key: String) {
        ManualChanges.willChange(object: self, key: key, kind: kind, indexes: indexes)
    }

    /// Ends the to-many change begun by ``willChange(_:valuesAt:forKey:)``; new values are the inserted or
    /// replacing elements.
    public func didChange(_ kind: KeyValueChange.Kind, valuesAt indexes: IndexSet, forKey key: String) {
        ManualChanges.didChange(object: self, key: key)
    }

    /// Announces that the unordered to-many property `key` (a `Set`) is about to change by `mutationKind` with
    /// `objects`, as the `Set` operation of the same name would change it. Pair it with
    /// ``didChangeValue(forKey:withSetMutation:using:)`` on the same thread, with the same arguments. Observers receive
    /// the kind Foundation maps the mutation to (``KeyValueSetMutationKind/changeKind``) and no indexes; the old value
    /// is the set of objects the mutation removes (for ``KeyValueSetMutationKind/minus``,
    /// ``KeyValueSetMutationKind/intersect`` and ``KeyValueSetMutationKind/set``), the new value the set of objects it
    /// adds (for ``KeyValueSetMutationKind/union`` and ``KeyValueSetMutationKind/set``), both worked out against the
    /// key's value now, as `Set<AnyHashable>` (`nil`, or a value that is not a set, holds no objects). Dependent and
    /// dotted key paths see a ``KeyValueChange/Kind/setting``.
    public func willChangeValue(
        forKey key: String, withSetMutation mutationKind: KeyValueSetMutationKind, using objects: Set<AnyHashable>
    ) {
        ManualChanges.willChange(
            object: self, key: key, kind: mutationKind.changeKind, indexes: nil,
            setMutation: SetMutation(kind: mutationKind, objects: objects))
    }

    /// Ends the set mutation begun by ``willChangeValue(forKey:withSetMutation:using:)``: observers are notified with
    /// the change it began. Without one, this is the misuse ``KVOMisuse/Kind/unpairedDidChange``.
    public func didChangeValue(
        forKey key: String, withSetMutation mutationKind: KeyValueSetMutationKind, using objects: Set<AnyHashable>
    ) {
        ManualChanges.didChange(object: self, key: key)
    }
}
