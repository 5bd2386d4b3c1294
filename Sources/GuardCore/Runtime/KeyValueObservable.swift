import Foundation

/// Adds compile-time-checked Swift key path overloads to every ``KVOObject`` (`person.addObserver(o, forKeyPath:
/// \.age)`). ``KVOObject`` conforms; you never conform yourself.
///
/// A key path has a name when it is a chain of ``Observed`` properties, or of plain stored properties that cannot be
/// overridden (of a `final` class, or declared `final`: in a class that can be subclassed, a plain stored property is
/// reached through its accessors, and its key path carries no name). Computed properties, optional chains and the
/// identity key path `\.self` have none, and using one is the misuse ``KVOMisuse/Kind/unknownKey``. Use the string
/// overloads for those.
public protocol KeyValueObservable: KVOObject {}

extension KVOObject: KeyValueObservable {}

extension KeyValueObservable {
    /// The string key path for a Swift key path (`"account.balance"` for `\.account.balance`), or `nil` if it has
    /// none (see ``KeyValueObservable``).
    public func keyPathString<Value>(for keyPath: KeyPath<Self, Value>) -> String? {
        KeyNameProbe.keyPathString(for: keyPath, on: self)
    }

    /// ``KVOObject/addObserver(_:forKeyPath:options:context:)`` with a Swift key path.
    public func addObserver<Value>(
        _ observer: any KeyValueObserver, forKeyPath keyPath: KeyPath<Self, Value>,
        options: KeyValueObservingOptions = [], context: UnsafeMutableRawPointer? = nil
    ) {
        guard let name = resolvedName(of: keyPath) else { return }
        addObserver(observer, forKeyPath: name, options: options, context: context)
    }

    /// ``KVOObject/removeObserver(_:forKeyPath:)`` with a Swift key path.
    public func removeObserver<Value>(_ observer: any KeyValueObserver, forKeyPath keyPath: KeyPath<Self, Value>) {
        guard let name = resolvedName(of: keyPath) else { return }
        removeObserver(observer, forKeyPath: name)
    }

    /// ``KVOObject/removeObserver(_:forKeyPath:context:)`` with a Swift key path.
    public func removeObserver<Value>(
        _ observer: any KeyValueObserver, forKeyPath keyPath: KeyPath<Self, Value>, context: UnsafeMutableRawPointer?
    ) {
        guard let name = resolvedName(of: keyPath) else { return }
        removeObserver(observer, forKeyPath: name, context: context)
    }

    // MARK: Ordered to-many helpers

    /// Inserts `elements` into the array property at `keyPath` so they end up at `indexes` (ascending), and
    /// notifies observers once with an ``KeyValueChange/Kind/insertion`` and those indexes.
    public func insert<Element>(
        _ elements: [Element], at indexes: IndexSet, into keyPath: ReferenceWritableKeyPath<Self, [Element]>
    ) {
        precondition(elements.count == indexes.count, "insert(_:at:into:) needs one index per element")
        mutateToMany(.insertion, at: indexes, keyPath) { array in
            for (element, index) in zip(elements, indexes) { array.insert(element, at: index) }
        }
    }

    /// Removes the elements at `indexes` from the array property at `keyPath` and notifies observers once with a
    /// ``KeyValueChange/Kind/removal``; the old value is the removed elements.
    public func removeElements<Element>(at indexes: IndexSet, from keyPath: ReferenceWritableKeyPath<Self, [Element]>) {
        mutateToMany(.removal, at: indexes, keyPath) { array in
            for index in indexes.reversed() { array.remove(at: index) }
        }
    }

    /// Replaces the elements at `indexes` of the array property at `keyPath` with `elements` and notifies observers
    /// once with a ``KeyValueChange/Kind/replacement``; old and new values are the replaced and replacing elements.
    public func replaceElements<Element>(
        at indexes: IndexSet, with elements: [Element], in keyPath: ReferenceWritableKeyPath<Self, [Element]>
    ) {
        precondition(elements.count == indexes.count, "replaceElements(at:with:in:) needs one index per element")
        mutateToMany(.replacement, at: indexes, keyPath) { array in
            for (element, index) in zip(elements, indexes) { array[index] = element }
        }
    }

    private func mutateToMany<Element>(
        _ kind: KeyValueChange.Kind, at indexes: IndexSet, _ keyPath: ReferenceWritableKeyPath<Self, [Element]>,
        _ mutate: (inout [Element]) -> Void
    ) {
        guard let key = resolvedName(of: keyPath) else { return }
        willChange(kind, valuesAt: indexes, forKey: key)
        ManualChanges.silently(object: self, key: key) {
            mutate(&self[keyPath: keyPath])
        }
        didChange(kind, valuesAt: indexes, forKey: key)
    }

    private func resolvedName<Value>(of keyPath: KeyPath<Self, Value>) -> String? {
        if let name = keyPathString(for: keyPath) { return name }
        RuntimeMonitor.handle(MisuseMessages.unknownKey(object: self, key: String(describing: keyPath)))
        return nil
    }
}
