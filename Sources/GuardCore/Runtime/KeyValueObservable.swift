import Foundation

/// Adds compile-time-checked Swift key path overloads to every ``KVOObject`` (`person.addObserver(o, forKeyPath:
/// \.age)`). ``KVOObject`` conforms; you never conform yourself.
///
/// A key path has a name when it is a chain of ``Observed`` properties, or of plain stored properties that cannot be
/// overridden (of a `final` class, or declared `final`: in a class that can be subclassed, a plain stored property is
/// reached through its accessors, and its key path carries no name). Optional chains and force unwraps along the way
/// are part of the chain, as in Foundation's `observe(\.link?.age)`: `\.link?.age` and `\.link!.age` are named
/// `link.age`, and while `link` is `nil` the value reads as `nil`, as the dotted string's does (naming never
/// evaluates the force unwrap). Computed properties, subscripts, tuple elements and the identity key path `\.self`
/// have none, and using one is the misuse ``KVOMisuse/Kind/unknownKey``, whose message shows the key path with every
/// component it can name (`\Profile.link?.<computed: Int>`). Use the string overloads for those. Naming a key path
/// never evaluates a subscript or a read-only computed property.
///
/// A component after a `nil` link is named by reading it on an object of the same class the key path went through
/// (the root, for `\Profile.link?.age`, whose `age` is read once, the first time the key path is named: like any read
/// observation makes, it must not race a set of that property on another thread); with none at hand it is named after
/// the one ``Observed`` property of its class with its value type, and has no name if there are several (observe
/// again once the link is set, or use the string key path).
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
    //
    // Given a dotted key path (`\.shelf.books`), a helper edits the array of the object at the end of the chain and
    // announces the edit there, for its last key, as Foundation's `mutableArrayValue(forKeyPath:)` does: observers of
    // `books` on the shelf get the insertion, removal or replacement with its indexes, and so do observers of
    // `shelf.books` on the root (the change is relayed along the key path with its kind and indexes, as Foundation's
    // nested observations forward the change they receive); a key declared to depend on `shelf.books` sees a
    // ``KeyValueChange/Kind/setting``. When the chain does not end at a ``KVOObject`` (a struct along the way), the
    // edit is announced on the root for the whole key path.

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
        guard let name = resolvedName(of: keyPath) else { return false }
        let (owner, key) = toManyOwner(forKeyPath: name)
        if let mismatch = edit.mismatch(withArrayOf: self[keyPath: keyPath].count) {
            let misuse = MisuseMessages.invalidIndexes(object: owner, key: key, edit: edit, mismatch: mismatch)
            RuntimeMonitor.handle(misuse)
            return false
        }
        owner.willChange(edit.kind, valuesAt: edit.indexes, forKey: key)
        // Checked again as it is applied: another thread may have changed the array since (a race of the caller's;
        // the change then announces what did not happen, but nothing traps).
        ManualChanges.silently(object: owner, key: key) {
            // The store below is a set through the property's setter, which reads these (see `SharedWord`).
            SchedulePoints.access(self, .resolvedKeys, .read)
            SchedulePoints.access(self, .announcedKeys, .read)
            _ = edit.apply(to: &self[keyPath: keyPath])
        }
        owner.didChange(edit.kind, valuesAt: edit.indexes, forKey: key)
        return true
    }

    /// The object that holds the array or set at `keyPath` and its key there: for `shelf.books`, the current shelf
    /// and `books` (read quietly); this object and `keyPath` itself for a key of its own, or when the chain does not
    /// lead to a ``KVOObject``.
    func toManyOwner(forKeyPath keyPath: String) -> (owner: KVOObject, key: String) {
        let (head, last) = KeyPathSyntax.splitLast(keyPath)
        guard let head,
            let owner = KeyValueReading.value(of: self, forKeyPath: head, reportingMisuse: false) as? KVOObject
        else { return (self, keyPath) }
        return (owner, last)
    }

    /// The string key path for `keyPath`, or `nil` after reporting the misuse ``KVOMisuse/Kind/unknownKey``.
    func resolvedName<Value>(of keyPath: KeyPath<Self, Value>) -> String? {
        if let name = keyPathString(for: keyPath) { return name }
        RuntimeMonitor.handle(
            MisuseMessages.unnamedKeyPath(object: self, description: KeyNameProbe.readableDescription(of: keyPath, on: self)))
        return nil
    }
}
