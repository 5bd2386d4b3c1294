/// Key-value coding reads past a value that is not a ``KVOObject``: through collections (mapping a key over their
/// elements, or applying a collection operator) and through the key `self`, as Foundation's `NSArray`, `NSSet` and
/// `NSObject` answer `valueForKeyPath:`.
///
/// - A key read over a collection gives an array of each element's value for it, in the collection's order (for a
///   set, its iteration order): Foundation's `NSArray.valueForKey:`. A nil value keeps its place as a boxed
///   `Optional<Any>.none` (Foundation puts `NSNull` there); over a set it is left out, as `NSSet`'s answer leaves it.
///   The rest of the key path is then read from that array, so `items.owner.name` is the array of each owner's name.
/// - `@operator` applies a collection operator (``CollectionOperator``) with the rest of the key path as its right
///   key path.
/// - `self` is the value itself (Foundation's `-self`): `@sum.self` of an array of numbers.
/// - A nil element reads as nil at every key (Foundation would send the message to `NSNull` and raise).
/// - Any other value does not know the key: the misuse ``KVOMisuse/Kind/unknownKey``.
enum CollectionKeyValueCoding {
    /// The value at `keyPath` of `value`, one met along a key path or an element of a collection.
    static func value(of value: Any, forKeyPath keyPath: String) -> Any? {
        var current = value
        var remaining = keyPath
        while true {
            guard let unwrapped = flattenOptional(current) else { return nil }
            if let collection = unwrapped as? any KeyValueCodingCollection {
                return self.value(of: collection, forKeyPath: remaining)
            }
            let (first, rest) = KeyPathSyntax.split(remaining)
            guard let rest else { return self.value(of: unwrapped, forKey: first) }
            guard let next = self.value(of: unwrapped, forKey: first) else { return nil }
            current = next
            remaining = rest
        }
    }

    /// The value at `keyPath` of `collection`: a collection operator's result, or the key path mapped over the
    /// elements.
    static func value(of collection: any KeyValueCodingCollection, forKeyPath keyPath: String) -> Any? {
        var current = collection
        var remaining = keyPath
        while true {
            let (first, rest) = KeyPathSyntax.split(remaining)
            if first.utf8.first == UInt8(ascii: "@") {
                return CollectionOperator.apply(
                    String(first.dropFirst()), to: current, rightKeyPath: rest, keyPath: remaining)
            }
            let mapped = values(of: current, forKey: first)
            guard let rest else { return mapped }
            current = mapped
            remaining = rest
        }
    }

    /// Each element's value for `key`: a nil one as a boxed nil, or left out of a set's.
    private static func values(of collection: any KeyValueCodingCollection, forKey key: String) -> [Any] {
        let leavesNilOut = type(of: collection).isUnordered
        var values: [Any] = []
        for element in collection.keyValueCodingElements {
            if let value = value(of: element, forKey: key) {
                values.append(value)
            } else if !leavesNilOut {
                values.append(Optional<Any>.none as Any)
            }
        }
        return values
    }

    /// The value of one key of `value`.
    private static func value(of value: Any, forKey key: String) -> Any? {
        guard let value = flattenOptional(value) else { return nil }
        if key == "self" { return value }
        if let object = value as? KVOObject { return object.value(forKey: key) }
        if let collection = value as? any KeyValueCodingCollection {
            return self.value(of: collection, forKeyPath: key)
        }
        report(MisuseMessages.unknownKey(in: value, key: key))
        return nil
    }

    /// Reports `misuse`, unless the read is a quiet one (``KeyValueReading``, ``UndefinedKeyProbe``), which reads a
    /// key path that cannot be followed as nil.
    static func report(_ misuse: @autoclosure () -> KVOMisuse) {
        if UndefinedKeyProbe.noteUndefinedKey() { return }
        RuntimeMonitor.handle(misuse())
    }
}
