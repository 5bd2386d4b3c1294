import Foundation

/// A collection key-value coding looks into, as Foundation's does into `NSArray`, `NSSet` and `NSOrderedSet`: Swift's
/// `Array`, `ContiguousArray`, `ArraySlice` and `Set`, and those Foundation classes.
///
/// Reading a key path through one maps the rest of the key path over its elements or applies a collection operator
/// (see ``KVOObject/value(forKeyPath:)``); observing through one is refused
/// (``KVOMisuse/Kind/keyPathThroughCollection``), as Foundation's collections cannot be observed.
protocol KeyValueCodingCollection {
    /// The elements, in the collection's order.
    var keyValueCodingElements: [Any] { get }
    /// Whether the collection is a set: a key read over it leaves nil values out, as `NSSet`'s does.
    static var isUnordered: Bool { get }
}

extension Array: KeyValueCodingCollection {
    var keyValueCodingElements: [Any] { map { $0 } }
    static var isUnordered: Bool { false }
}

extension ContiguousArray: KeyValueCodingCollection {
    var keyValueCodingElements: [Any] { map { $0 } }
    static var isUnordered: Bool { false }
}

extension ArraySlice: KeyValueCodingCollection {
    var keyValueCodingElements: [Any] { map { $0 } }
    static var isUnordered: Bool { false }
}

extension Set: KeyValueCodingCollection {
    var keyValueCodingElements: [Any] { map { $0 } }
    static var isUnordered: Bool { true }
}

extension NSArray: KeyValueCodingCollection {
    var keyValueCodingElements: [Any] { map { $0 } }
    static var isUnordered: Bool { false }
}

extension NSOrderedSet: KeyValueCodingCollection {
    var keyValueCodingElements: [Any] { map { $0 } }
    static var isUnordered: Bool { false }
}

extension NSSet: KeyValueCodingCollection {
    var keyValueCodingElements: [Any] { map { $0 } }
    static var isUnordered: Bool { true }
}

/// Where a key path to observe meets a collection or a collection operator, which cannot be observed.
struct CollectionStep: Sendable {
    /// The key path that goes through it: the one observed, or one declared to affect it.
    let keyPath: String
    /// The key path of the collection itself (`items` for `items.name`), or what comes before the operator.
    let collectionKeyPath: String
    /// What the collection would have to observe: `name` for `items.name`, `@count` for `items.@count`.
    let forwardedPath: String
    /// The collection's declared type (`Array<Item>`), when known.
    let collectionType: Any.Type?

    /// The first place in `keyPath`, observed on objects of `type`, that is a collection operator (`@count`) or
    /// the key of a stored property declared as a collection with keys after it; `nil` if there is none as far as
    /// the declared types of stored properties tell.
    static func find(in keyPath: String, from type: KVOObject.Type) -> CollectionStep? {
        let components = keyPath.utf8.split(separator: 0x2E, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        var current: KVOObject.Type? = type
        var previousType: Any.Type?
        for (index, component) in components.enumerated() {
            if component.utf8.first == UInt8(ascii: "@"), index > 0 {
                return CollectionStep(
                    keyPath: keyPath, collectionKeyPath: components[..<index].joined(separator: "."),
                    forwardedPath: components[index...].joined(separator: "."), collectionType: previousType)
            }
            let declared = current.flatMap { StoredPropertyTable.for($0).property(named: component)?.valueType }
                .map(unwrappingOptionals)
            if let declared, declared is any KeyValueCodingCollection.Type, index + 1 < components.count {
                return CollectionStep(
                    keyPath: keyPath, collectionKeyPath: components[...index].joined(separator: "."),
                    forwardedPath: components[(index + 1)...].joined(separator: "."), collectionType: declared)
            }
            current = declared as? KVOObject.Type
            previousType = declared
        }
        return nil
    }

    /// Whether the value of `key` on objects of `type` may be a collection: `false` only for a stored property
    /// declared as a class that is no collection (whose value never is one).
    static func mayHoldCollection(_ key: String, of type: KVOObject.Type) -> Bool {
        guard let declared = StoredPropertyTable.for(type).property(named: key)?.valueType else { return true }
        let unwrapped = unwrappingOptionals(declared)
        return !(unwrapped is AnyClass) || unwrapped is any KeyValueCodingCollection.Type
    }

    /// `Wrapped` for `Optional<Wrapped>` (at any depth), else `type`.
    private static func unwrappingOptionals(_ type: Any.Type) -> Any.Type {
        var current = type
        while let optional = current as? any OptionalProtocol.Type { current = optional.wrappedType }
        return current
    }
}
