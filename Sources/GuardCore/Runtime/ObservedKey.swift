/// The key of an ``Observed`` property, with its ``KeyHash`` and ``KeyBit``, cached in the property after the first
/// observed set.
@usableFromInline
struct ObservedKey: Sendable {
    let name: String
    /// ``KeyHash`` of `name`: how an object's table finds the observances of this key without hashing the name.
    let hash: UInt64
    @usableFromInline let bit: UInt64
    /// Whether the property's type is an `Optional`, whose `nil` must be flattened like key-value coding does.
    let valueIsOptional: Bool

    /// The key named `name`; an empty name (a property whose name cannot be had) gets no bit, so it is never
    /// announced.
    init(name: String, valueIsOptional: Bool) {
        self.name = name
        self.hash = KeyHash.of(name)
        self.bit = name.isEmpty ? 0 : KeyBit.of(hash: hash)
        self.valueIsOptional = valueIsOptional
    }

    private struct StorageLocation: Hashable {
        let type: ObjectIdentifier
        let offset: Int
    }

    private static let byLocation = ReadMostlyCache<StorageLocation, ObservedKey>()

    /// The key of the `@Observed` property whose storage is `offset` bytes into instances of `type`: the name the
    /// type's reflection metadata gives that field, without its underscore (`_age` gives `age`, `_größe` gives
    /// `größe`). If no name can be had (a build without reflection metadata), the property gets no key bit: it is
    /// never announced, and nobody can register for it by name either.
    static func resolve(offset: Int, in type: KVOObject.Type, valueIsOptional: Bool) -> ObservedKey {
        byLocation.value(for: StorageLocation(type: ObjectIdentifier(type), offset: offset)) {
            ObservedKey(name: storageName(atOffset: offset, in: type) ?? "", valueIsOptional: valueIsOptional)
        }
    }

    /// `age` for the `@Observed` property whose storage `_age` is `offset` bytes into instances of `type` (any
    /// identifier, `größe` and `😀` included); `nil` if the reflection metadata names no such property.
    static func storageName(atOffset offset: Int, in type: KVOObject.Type) -> String? {
        let table = StoredPropertyTable.for(type)
        return table.keys.first {
            guard let property = table.property(named: $0) else { return false }
            return property.isObserved && property.offset == offset
        }
    }
}
