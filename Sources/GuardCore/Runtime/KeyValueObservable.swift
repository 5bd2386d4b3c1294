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
    //
    // Each helper checks its indexes against the array before it announces anything: indexes that do not fit are the
    // misuse ``KVOMisuse/Kind/invalidIndexes`` (Foundation raises), and with a policy that continues the helper
    // returns `false` having announced and changed nothing.

    /// Inserts `elements` into the array property at `keyPath` so they end up at `indexes` (ascending), and
    /// notifies observers once with an ``KeyValueChange/Kind/insertion`` and those indexes. Returns whether it did:
    /// one index per element, the `k`-th at most the array's count plus `k`, or it is the misuse
    /// ``KVOMisuse/Kind/invalidIndexes`` and nothing is announced or changed.
    @discardableResult
    public func insert<Element>(
        _ elements: [Element], at indexes: IndexSet, into keyPath: ReferenceWritableKeyPath<Self, [Element]>
    ) -> Bool {
        edit(ToManyEdit(action: .insert(elements), indexes: indexes), keyPath)
    }

    /// Removes the elements at `indexes` from the array property at `keyPath` and notifies observers once with a
    /// ``KeyValueChange/Kind/removal``; the old value is the removed elements. Returns whether it did: an index
    /// beyond the array's bounds is the misuse ``KVOMisuse/Kind/invalidIndexes``, and nothing is announced or
    /// changed.
    @discardableResult
    public func removeElements<Element>(
        at indexes: IndexSet, from keyPath: ReferenceWritableKeyPath<Self, [Element]>
    ) -> Bool {
        edit(ToManyEdit(action: .remove, indexes: indexes), keyPath)
    }

    /// Replaces the elements at `indexes` of the array property at `keyPath` with `elements` and notifies observers
    /// once with a ``KeyValueChange/Kind/replacement``; old and new values are the replaced and replacing elements.
    /// Returns whether it did: one index per element, each within the array's bounds, or it is the misuse
    /// ``KVOMisuse/Kind/invalidIndexes`` and nothing is announced or changed.
    @discardableResult
    public func replaceElements<Element>(
        at indexes: IndexSet, with elements: [Element], in keyPath: ReferenceWritableKeyPath<Self, [Element]>
    ) -> Bool {
        edit(ToManyEdit(action: .replace(elements), indexes: indexes), keyPath)
    }

    private func edit<Element>(_ edit: ToManyEdit<Element>, _ keyPath: ReferenceWritableKeyPath<Self, [Element]>) -> Bool {
        guard let key = resolvedName(of: keyPath) else { return false }
        if let mismatch = edit.mismatch(withArrayOf: self[keyPath: keyPath].count) {
            RuntimeMonitor.handle(MisuseMessages.invalidIndexes(object: self, key: key, edit: edit, mismatch: mismatch))
            return false
        }
        willChange(edit.kind, valuesAt: edit.indexes, forKey: key)
        // Checked again as it is applied: another thread may have changed the array since (a race of the caller's;
        // the change then announces what did not happen, but nothing traps).
        ManualChanges.silently(object: self, key: key) {
            _ = edit.apply(to: &self[keyPath: keyPath])
        }
        didChange(edit.kind, valuesAt: edit.indexes, forKey: key)
        return true
    }

    private func resolvedName<Value>(of keyPath: KeyPath<Self, Value>) -> String? {
        if let name = keyPathString(for: keyPath) { return name }
        RuntimeMonitor.handle(MisuseMessages.unknownKey(object: self, key: String(describing: keyPath)))
        return nil
    }
}
