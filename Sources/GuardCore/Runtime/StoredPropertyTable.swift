/// The stored properties of a ``KVOObject`` subclass by key, read from the type's reflection metadata.
///
/// Built once per class without touching any instance, so building it never races with a setter. Reading a
/// property reads that property's storage and nothing else. Only fields that hold a value key-value coding can copy
/// are keys:
/// - a `weak` or `unowned` property is read through the Swift runtime's weak and unowned loads (its object, or `nil`
///   once a weak one's object is gone), never as a strong reference;
/// - these are listed as refused (expose one by overriding ``KVOObject/value(forKey:)``): `unowned(unsafe)`
///   properties, whose object may be gone without a trace (reading one could crash); weak and unowned properties
///   whose kind of reference the runtime does not describe; and properties reflection reports as `()`. The Swift
///   runtime reports `()` in place of a type it does not describe: a noncopyable (`~Copyable`) type, whose value
///   cannot be copied into an `Any`, or a type whose metadata is missing. A property declared as `()` is refused too
///   (reflection cannot tell it apart; it holds nothing).
///
/// A `lazy var name` is stored (reflection shows its storage as an optional field `$__lazy_storage_$_name`, `nil`
/// until the first read) and is a key under its own name: once initialized its value is read from that storage. Its
/// initializer is code only its getter runs, which reflection cannot call, so before the first read it has no value
/// key-value coding can read (see ``KVOObject/value(forKey:)``).
///
/// Every key but a `let` can also be set (``KVOObject/setValue(_:forKey:)``): see ``Property/storer``.
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
        /// Checks a value for a set of the property (``KeyValueStore``); `nil` for a `let`, which key-value coding
        /// never sets. The store of an ``Observed`` property announces the change as the property's setter does.
        let storer: (@Sendable (Any?) -> KeyValueStore)?

        init(
            offset: Int, valueType: Any.Type, isObserved: Bool, reader: @escaping @Sendable (UnsafeRawPointer) -> Any?,
            storer: (@Sendable (Any?) -> KeyValueStore)?, isUninitializedLazy: (@Sendable (UnsafeRawPointer) -> Bool)? = nil
        ) {
            self.offset = offset
            self.valueType = valueType
            self.isObserved = isObserved
            self.reader = reader
            self.storer = storer
            self.isUninitializedLazy = isUninitializedLazy
        }

        /// Whether the property is a `let` (readable, never set by key-value coding).
        var isConstant: Bool { storer == nil }

        /// The property's current value on `object`, `nil` if it is an `Optional.none`.
        func read(from object: KVOObject) -> Any? {
            reader(address(in: object))
        }

        /// Whether the property is `lazy` and `object` has not initialized it yet (so it has no readable value).
        func isUninitialized(in object: KVOObject) -> Bool {
            isUninitializedLazy?(address(in: object)) ?? false
        }

        /// Where the property's storage lies in `object` (which the caller keeps alive).
        func address(in object: KVOObject) -> UnsafeMutableRawPointer {
            Unmanaged.passUnretained(object).toOpaque() + offset
        }
    }

    /// By name, told apart by bytes (see ``ExactKey``).
    private let properties: [ExactKey: Property]
    private let refusedKeys: [ExactKey: Refusal]

    /// Why a stored property is not a key.
    enum Refusal: Sendable, Equatable {
        /// A `weak` or `unowned` property whose kind of reference the runtime does not describe.
        case notAStrongReference
        /// An `unowned(unsafe)` property.
        case unownedUnsafe
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
        var ownerships: [String: FieldOwnership]?
        for field in StoredFieldReflection.fields(of: type) where !baseOffsets.contains(field.offset) {
            let name = field.name
            if let observed = field.type as? any ObservedStorage.Type, name.hasPrefix("_"), name.count > 1 {
                properties[ExactKey(String(name.dropFirst()))] = Property(
                    offset: field.offset, valueType: observed.wrappedValueType, isObserved: true,
                    reader: observedReader(for: observed), storer: observed.keyValueStorer)
            } else if name.hasPrefix(lazyStoragePrefix), name.count > lazyStoragePrefix.count, field.isStrong,
                let lazy = lazyProperty(offset: field.offset, storageType: field.type, isVar: field.isVar)
            {
                properties[ExactKey(String(name.dropFirst(lazyStoragePrefix.count)))] = lazy
            } else if name.contains("$") {
                continue
            } else if field.type == Void.self {
                refused[ExactKey(name)] = .reflectedAsEmptyTuple
            } else if field.isStrong {
                properties[ExactKey(name)] = plainProperty(field)
            } else {
                if ownerships == nil { ownerships = FieldOwnership.nonStrongFields(of: type) }
                switch ownerships?[name] {
                case .weak? where ReferenceFieldAccess.canAccess(field.type):
                    properties[ExactKey(name)] = referenceProperty(field, kind: .weak)
                case .unowned? where ReferenceFieldAccess.canAccess(field.type):
                    properties[ExactKey(name)] = referenceProperty(field, kind: .unowned)
                case .unownedUnsafe?:
                    refused[ExactKey(name)] = .unownedUnsafe
                default:
                    refused[ExactKey(name)] = .notAStrongReference
                }
            }
        }
        return StoredPropertyTable(properties: properties, refusedKeys: refused)
    }

    /// A plain stored property: read and written as a value of its type.
    private static func plainProperty(_ field: StoredFieldReflection.Field) -> Property {
        func make<Field>(_ type: Field.Type) -> Property {
            Property(
                offset: field.offset, valueType: type, isObserved: false, reader: reader(for: type),
                storer: field.isVar
                    ? KeyValueStore.storer(for: type) { value, _, address in
                        address.assumingMemoryBound(to: Field.self).pointee = value
                    } : nil)
        }
        return _openExistential(field.type, do: make)
    }

    /// A `weak` or `unowned` stored property: read and written through the runtime's operations for its kind.
    private static func referenceProperty(
        _ field: StoredFieldReflection.Field, kind: ReferenceFieldAccess.Kind
    ) -> Property {
        func make<Field>(_ type: Field.Type) -> Property {
            Property(
                offset: field.offset, valueType: type, isObserved: false,
                reader: { address in ReferenceFieldAccess.read(Field.self, kind: kind, at: address) },
                storer: field.isVar
                    ? KeyValueStore.storer(for: type) { value, _, address in
                        ReferenceFieldAccess.write(value, kind: kind, at: address)
                    } : nil)
        }
        return _openExistential(field.type, do: make)
    }

    /// How Swift names the storage of `lazy var name`: this prefix, then the name.
    private static let lazyStoragePrefix = "$__lazy_storage_$_"

    /// The property of a `lazy` stored property whose storage (an `Optional` of the property's type, `nil` until the
    /// first read) is `storageType` at `offset`; `nil` if the storage is not an `Optional`. A set stores the value as
    /// if the property had been read (and initialized) first.
    private static func lazyProperty(offset: Int, storageType: Any.Type, isVar: Bool) -> Property? {
        func make<Storage>(_ type: Storage.Type) -> Property? {
            guard let optional = type as? any OptionalProtocol.Type else { return nil }
            func storer<Wrapped>(_ wrapped: Wrapped.Type) -> @Sendable (Any?) -> KeyValueStore {
                KeyValueStore.storer(for: wrapped) { value, _, address in
                    address.assumingMemoryBound(to: Wrapped?.self).pointee = .some(value)
                }
            }
            return Property(
                offset: offset, valueType: optional.wrappedType, isObserved: false, reader: reader(for: type),
                storer: isVar ? _openExistential(optional.wrappedType, do: storer) : nil,
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
