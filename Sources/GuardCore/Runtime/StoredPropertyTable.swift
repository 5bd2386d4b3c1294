/// The stored properties of a ``KVOObject`` subclass by key, read from the type's reflection metadata.
///
/// Built once per class without touching any instance, so building it never races with a setter. Reading a
/// property reads that property's storage and nothing else. Only fields that hold a value key-value coding can copy
/// are keys; these are listed as refused (expose one by overriding ``KVOObject/value(forKey:)``):
/// - `weak`, `unowned` and `unowned(unsafe)` properties, whose storage is not a strong reference;
/// - properties reflection reports as `()`. The Swift runtime reports `()` in place of a type it does not describe:
///   a noncopyable (`~Copyable`) type, whose value cannot be copied into an `Any`, or a type whose metadata is
///   missing. A property declared as `()` is refused too (reflection cannot tell it apart; it holds nothing).
///
/// A `lazy var name` is stored (reflection shows its storage as an optional field `$__lazy_storage_$_name`, `nil`
/// until the first read) and is a key under its own name: once initialized its value is read from that storage. Its
/// initializer is code only its getter runs, which reflection cannot call, so before the first read it has no value
/// key-value coding can read (see ``KVOObject/value(forKey:)``).
final class StoredPropertyTable: Sendable {
    /// One readable stored property.
    struct Property: Sendable {
        let offset: Int
        /// The property's type (for an ``Observed`` property, the wrapped value's type).
        let valueType: Any.Type
        /// Whether it is an ``Observed`` property.
        let isObserved: Bool
        let reader: @Sendable (UnsafeRawPointer) -> Any?
        /// For a `lazy` property: whether its storage is still empty (never read); `nil` for other properties.
        let isUninitializedLazy: (@Sendable (UnsafeRawPointer) -> Bool)?

        init(
            offset: Int, valueType: Any.Type, isObserved: Bool, reader: @escaping @Sendable (UnsafeRawPointer) -> Any?,
            isUninitializedLazy: (@Sendable (UnsafeRawPointer) -> Bool)? = nil
        ) {
            self.offset = offset
            self.valueType = valueType
            self.isObserved = isObserved
            self.reader = reader
            self.isUninitializedLazy = isUninitializedLazy
        }

        /// The property's current value on `object`, `nil` if it is an `Optional.none`.
        func read(from object: KVOObject) -> Any? {
            reader(address(in: object))
        }

        /// Whether the property is `lazy` and `object` has not initialized it yet (so it has no readable value).
        func isUninitialized(in object: KVOObject) -> Bool {
            isUninitializedLazy?(address(in: object)) ?? false
        }

        private func address(in object: KVOObject) -> UnsafeRawPointer {
            UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset
        }
    }

    /// By name, told apart by bytes (see ``ExactKey``).
    private let properties: [ExactKey: Property]
    private let refusedKeys: [ExactKey: Refusal]

    /// Why a stored property is not a key.
    enum Refusal: Sendable, Equatable {
        /// A `weak`, `unowned` or `unowned(unsafe)` property.
        case notAStrongReference
        /// A property reflection reports as `()`: of a noncopyable type, or one reflection does not describe.
        case reflectedAsEmptyTuple
    }

    private init(properties: [ExactKey: Property], refusedKeys: [ExactKey: Refusal]) {
        self.properties = properties
        self.refusedKeys = refusedKeys
    }

    /// The property named `key` (for an ``Observed`` property, its name without the underscore).
    func property(named key: String) -> Property? {
        properties[ExactKey(key)]
    }

    /// Why key-value coding refuses to read the stored property `key`; `nil` if it is no refused stored property.
    func refusal(of key: String) -> Refusal? {
        refusedKeys[ExactKey(key)]
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

    /// Offsets of the stored properties `KVOObject` itself declares; they are runtime state, not keys. (Read
    /// through the process's entry points, so a simulated absence of reflection cannot leave them out.)
    private static let baseOffsets = Set(
        StoredFieldReflection.entryPoints.map { StoredFieldReflection.fields(of: KVOObject.self, using: $0) }?
            .map(\.offset) ?? [])

    private static func build(for type: KVOObject.Type) -> StoredPropertyTable {
        var properties: [ExactKey: Property] = [:]
        var refused: [ExactKey: Refusal] = [:]
        for field in StoredFieldReflection.fields(of: type) where !baseOffsets.contains(field.offset) {
            let name = field.name
            if let observed = field.type as? any ObservedStorage.Type, name.hasPrefix("_"), name.count > 1 {
                properties[ExactKey(String(name.dropFirst()))] = Property(
                    offset: field.offset, valueType: observed.wrappedValueType, isObserved: true,
                    reader: observedReader(for: observed))
            } else if name.hasPrefix(lazyStoragePrefix), name.count > lazyStoragePrefix.count, field.isStrong,
                let lazy = lazyProperty(offset: field.offset, storageType: field.type)
            {
                properties[ExactKey(String(name.dropFirst(lazyStoragePrefix.count)))] = lazy
            } else if name.contains("$") {
                continue
            } else if field.type == Void.self {
                refused[ExactKey(name)] = .reflectedAsEmptyTuple
            } else if field.isStrong {
                properties[ExactKey(name)] = Property(
                    offset: field.offset, valueType: field.type, isObserved: false, reader: reader(for: field.type))
            } else {
                refused[ExactKey(name)] = .notAStrongReference
            }
        }
        return StoredPropertyTable(properties: properties, refusedKeys: refused)
    }

    /// How Swift names the storage of `lazy var name`: this prefix, then the name.
    private static let lazyStoragePrefix = "$__lazy_storage_$_"

    /// The property of a `lazy` stored property whose storage (an `Optional` of the property's type, `nil` until the
    /// first read) is `storageType` at `offset`; `nil` if the storage is not an `Optional`.
    private static func lazyProperty(offset: Int, storageType: Any.Type) -> Property? {
        func make<Storage>(_ type: Storage.Type) -> Property? {
            guard let optional = type as? any OptionalProtocol.Type else { return nil }
            return Property(
                offset: offset, valueType: optional.wrappedType, isObserved: false, reader: reader(for: type),
                isUninitializedLazy: { address in
                    (address.assumingMemoryBound(to: Storage.self).pointee as? any OptionalProtocol)?.isNone ?? true
                })
        }
        return _openExistential(storageType, do: make)
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
