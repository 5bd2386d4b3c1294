import Foundation

// MARK: Unordered to-many helpers
//
// Each helper changes the set property at a Swift key path as the `Set` operation of its name does and announces the
// change once, with Foundation's set mutation (``KVOObject/willChangeValue(forKey:withSetMutation:using:)``): observers
// get its change kind, the objects it removed as the old value and those it added as the new value (`Set<AnyHashable>`),
// no indexes. Like the ordered helpers, a helper checks what it can before it announces anything: a key path without a
// name is the misuse ``KVOMisuse/Kind/unknownKey``, and with a policy that continues the helper returns `false` having
// announced and changed nothing. A dotted key path (`\.shelf.tags`) is edited and announced on the object at the end
// of the chain, for its last key, and relayed to observers of the whole key path on the root.

extension KeyValueObservable {
    /// Adds `elements` to the set property at `keyPath` (`formUnion`) and notifies observers once with an
    /// ``KeyValueChange/Kind/insertion`` whose new value is the elements that were not in the set. Returns whether it
    /// did (see above).
    @discardableResult
    public func insert<Element: Hashable>(
        _ elements: Set<Element>, into keyPath: ReferenceWritableKeyPath<Self, Set<Element>>
    ) -> Bool {
        mutate(keyPath, .union, elements)
    }

    /// Removes `elements` from the set property at `keyPath` (`subtract`) and notifies observers once with a
    /// ``KeyValueChange/Kind/removal`` whose old value is the elements that were in the set. Returns whether it did.
    @discardableResult
    public func remove<Element: Hashable>(
        _ elements: Set<Element>, from keyPath: ReferenceWritableKeyPath<Self, Set<Element>>
    ) -> Bool {
        mutate(keyPath, .minus, elements)
    }

    /// Keeps only the elements of the set property at `keyPath` that are among `elements` (`formIntersection`) and
    /// notifies observers once with a ``KeyValueChange/Kind/removal`` whose old value is the elements it removed.
    /// Returns whether it did.
    @discardableResult
    public func intersect<Element: Hashable>(
        _ elements: Set<Element>, in keyPath: ReferenceWritableKeyPath<Self, Set<Element>>
    ) -> Bool {
        mutate(keyPath, .intersect, elements)
    }

    /// Replaces the contents of the set property at `keyPath` with `elements` and notifies observers once with a
    /// ``KeyValueChange/Kind/replacement`` whose old value is the elements it removed and whose new value is the
    /// elements it added. Returns whether it did.
    @discardableResult
    public func replaceAll<Element: Hashable>(
        with elements: Set<Element>, in keyPath: ReferenceWritableKeyPath<Self, Set<Element>>
    ) -> Bool {
        mutate(keyPath, .set, elements)
    }

    private func mutate<Element: Hashable>(
        _ keyPath: ReferenceWritableKeyPath<Self, Set<Element>>, _ kind: KeyValueSetMutationKind, _ elements: Set<Element>
    ) -> Bool {
        guard let name = resolvedName(of: keyPath) else { return false }
        let (owner, key) = toManyOwner(forKeyPath: name)
        var objects = Set<AnyHashable>(minimumCapacity: elements.count)
        for element in elements { objects.insert(AnyHashable(element)) }
        owner.willChangeValue(forKey: key, withSetMutation: kind, using: objects)
        ManualChanges.silently(object: owner, key: key) {
            SetMutation.apply(kind, elements, to: &self[keyPath: keyPath])
        }
        owner.didChangeValue(forKey: key, withSetMutation: kind, using: objects)
        return true
    }
}
