/// The stored properties of a ``KVOObject`` subclass by key, read from the type's reflection metadata.
///
/// Built once per class without touching any instance, so building it never races with a setter. Reading a
/// property reads that property's storage and nothing else. Only fields that hold their value directly are keys:
/// `weak`, `unowned` and `unowned(unsafe)` properties are listed as refused (key-value coding cannot read their
/// storage safely; expose one by overriding ``KVOObject/value(forKey:)``).
final class StoredPropertyTable: Sendable {
    /// One readable stored property.
    struct Property: Sendable {
        let offset: Int
        /// The property's type (for an ``Observed`` property, the wrapped value's type).
        let valueType: Any.Type
        /// Whether it is an ``Observed`` property.
        let isObserved: Bool
        let reader: @Sendable (UnsafeRawPointer) -> Any?

        /// The property's current value on `object`, `nil` if it is an `Optional.none`.
        func read(from object: KVOObject) -> Any? {
            reader(UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset)
        }
    }

    /// By name, told apart by bytes (see ``ExactKey``).
    private let properties: [ExactKey: Property]
    private let refusedKeys: Set<ExactKey>

    private init(properties: [ExactKey: Property], refusedKeys: Set<ExactKey>) {
        self.properties = properties
        self.refusedKeys = refusedKeys
    }

    /// The property named `key` (for an ``Observed`` property, its name without the underscore).
    func property(named key: String) -> Property? {
        properties[ExactKey(key)]
    }

    /// Whether `key` is a `weak` or `unowned` stored property, which key-value coding refuses to read.
    func isRefusedWeakOrUnowned(_ key: String) -> Bool {
        refusedKeys.contains(ExactKey(key))
    }

    /// Every readable key.
    var keys: [String] {
        properties.keys.map(\.string)
    }

    /// The value types of the ``Observed`` properties.
    var observedValueTypes: [Any.Type] {
        properties.values.filter(\.isObserved).map(\.valueType)
    }

    private static let cache = ReadMostlyCache<ObjectIdentifier, StoredPropertyTable>()

    /// The table of `type`, built on first use; later lookups take no process-wide lock.
    static func `for`(_ type: KVOObject.Type) -> StoredPropertyTable {
        cache.value(for: ObjectIdentifier(type)) { build(for: type) }
    }

    /// Offsets of the stored properties `KVOObject` itself declares; they are runtime state, not keys.
    private static let baseOffsets = Set(StoredFieldReflection.fields(of: KVOObject.self).map(\.offset))

    private static func build(for type: KVOObject.Type) -> StoredPropertyTable {
        var properties: [ExactKey: Property] = [:]
        var refused: Set<ExactKey> = []
        for field in StoredFieldReflection.fields(of: type) where !baseOffsets.contains(field.offset) {
            let name = field.name
            if let observed = field.type as? any ObservedStorage.Type, name.hasPrefix("_"), name.count > 1 {
                properties[ExactKey(String(name.dropFirst()))] = Property(
                    offset: field.offset, valueType: observed.wrappedValueType, isObserved: true,
                    reader: observedReader(for: observed))
            } else if name.contains("$") {
                continue
            } else if field.isStrong {
                properties[ExactKey(name)] = Property(
                    offset: field.offset, valueType: field.type, isObserved: false, reader: reader(for: field.type))
            } else {
                refused.insert(ExactKey(name))
            }
        }
        return StoredPropertyTable(properties: properties, refusedKeys: refused)
    }

    private static func observedReader<Storage: ObservedStorage>(
        for type: Storage.Type
    ) -> @Sendable (UnsafeRawPointer) -> Any? {
        { address in Storage.readValue(at: address) }
    }

    private static func reader<Field>(for type: Field.Type) -> @Sendable (UnsafeRawPointer) -> Any? {
        { address in flattenOptional(address.assumingMemoryBound(to: Field.self).pointee) }
    }
}
