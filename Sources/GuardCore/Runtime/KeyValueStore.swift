/// What ``KVOObject/setValue(_:forKey:)`` can do with a value for one stored property: store it (converted to the
/// property's type, see ``KeyValueConversion``), or why not.
enum KeyValueStore {
    /// Stores the value into the property of the object, whose storage is at the address. For an ``Observed``
    /// property this is the property's own set, announced as its setter announces it.
    case store((KVOObject, UnsafeMutableRawPointer) -> Void)
    /// The value is `nil` and the property is not optional (Foundation: `setNilValueForKey:`).
    case nilForNonOptional
    /// The value cannot be converted to the property's type, `expected`.
    case wrongType(expected: Any.Type)

    /// The storer of a property of type `Value`: converts the value, and stores it with `storing`.
    static func storer<Value>(
        for _: Value.Type, storing: @escaping @Sendable (Value, KVOObject, UnsafeMutableRawPointer) -> Void
    ) -> @Sendable (Any?) -> KeyValueStore {
        { newValue in
            switch KeyValueConversion.convert(newValue, to: Value.self) {
            case .value(let value): return .store { object, address in storing(value, object, address) }
            case .nilForNonOptional: return .nilForNonOptional
            case .wrongType: return .wrongType(expected: Value.self)
            }
        }
    }
}

/// How ``KVOObject/setValue(_:forKey:)`` runs a store: an ``Observed`` property's store announces itself (it is the
/// property's own set); any other stored property is announced around the store with
/// ``KVOObject/willChangeValue(forKey:)`` and ``KVOObject/didChangeValue(forKey:)`` when the class notifies
/// automatically for the key, as Foundation's key-value coding announces the sets it makes. As with a setter, a set of
/// a key nobody observes when the set begins is not announced.
enum KeyValueSetting {
    static func run(
        _ store: (KVOObject, UnsafeMutableRawPointer) -> Void, of property: StoredPropertyTable.Property, key: String,
        on object: KVOObject
    ) {
        let address = property.address(in: object)
        guard !property.isObserved,
            object.announcedKeys.load(ordering: .acquiring) & KeyBit.of(hash: KeyHash.of(key)) != 0,
            type(of: object).automaticallyNotifiesObservers(forKey: key)
        else {
            store(object, address)
            return
        }
        object.willChangeValue(forKey: key)
        store(object, address)
        object.didChangeValue(forKey: key)
    }
}
