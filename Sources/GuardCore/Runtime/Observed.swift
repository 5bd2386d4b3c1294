
/// Marks a stored property of a ``KVOObject`` subclass as key-value observable under its own name.
///
/// ```swift
/// final class Account: KVOObject {
///     @Observed var balance = 0
/// }
/// ```
///
/// Setting the property notifies observers of `"balance"` (and of keys that depend on it) synchronously, with
/// `.prior`, `.old` and `.new` as requested. When nobody observes the object, a set costs one atomic load on top
/// of the store. The key is the property's name, learned from the type's reflection metadata the first time it is
/// needed and then cached in the property itself.
///
/// Concurrent sets of the *same* property from several threads are a data race, as with any Swift property (and
/// with Foundation): serialize them yourself. Observation bookkeeping, by contrast, is fully thread-safe.
@propertyWrapper
public struct Observed<Value> {
    @usableFromInline var value: Value
    @usableFromInline var key: ObservedKey?

    /// Creates the storage with an initial value.
    public init(wrappedValue: Value) {
        self.value = wrappedValue
        self.key = nil
    }

    /// The accessors Swift uses for `@Observed` properties of classes: reads are plain (plus a probe check for
    /// typed key path resolution); writes announce the change when someone observes the key. Inlinable, so the
    /// unobserved path compiles down to a field access and one atomic load in the declaring module.
    @inlinable
    public static subscript<Object: KVOObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            if KeyNameProbe.activeProbes.word.load(ordering: .relaxed) != 0 {
                KeyNameProbe.recordIfProbing(wrapped: wrappedKeyPath, storage: storageKeyPath)
            }
            return object[keyPath: storageKeyPath].value
        }
        set {
            let announced = object.announcedKeys.load(ordering: .acquiring)
            if announced == 0 {
                object[keyPath: storageKeyPath].value = newValue
                return
            }
            if let key = object[keyPath: storageKeyPath].key, announced & key.bit == 0 {
                object[keyPath: storageKeyPath].value = newValue
                return
            }
            setAnnouncing(newValue, on: object, storage: storageKeyPath)
        }
    }

    /// Unavailable: `@Observed` works only on properties of classes that inherit from ``KVOObject``.
    @available(*, unavailable, message: "@Observed is only available on properties of KVOObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unreachable") }
        set { fatalError("unreachable") }
    }

    /// The observed path of a set: resolve the key once, then announce if the key's bit is in the mask. Inlinable
    /// so the storage accesses are specialized in the declaring module; the announcing itself is not generic.
    @inlinable
    static func setAnnouncing<Object: KVOObject>(
        _ newValue: Value, on object: Object, storage: ReferenceWritableKeyPath<Object, Self>
    ) {
        let key = object[keyPath: storage].key ?? resolveKey(on: object, storage: storage)
        guard object.announcedKeys.load(ordering: .acquiring) & key.bit != 0 else {
            object[keyPath: storage].value = newValue
            return
        }
        ChangeAnnouncer.announceSetting(
            of: key, on: object,
            currentValue: { object[keyPath: storage].value },
            newValue: newValue,
            store: { object[keyPath: storage].value = newValue })
    }

    /// Learns the property's key (cached per class) and remembers it in the property itself.
    @usableFromInline
    static func resolveKey<Object: KVOObject>(
        on object: Object, storage: ReferenceWritableKeyPath<Object, Self>
    ) -> ObservedKey {
        let key = ObservedKey.resolve(storage: storage, valueIsOptional: Value.self is any OptionalProtocol.Type)
        object[keyPath: storage].key = key
        return key
    }
}

extension Observed: ObservedStorage {
    static var wrappedValueType: Any.Type { Value.self }

    static func readValue(at address: UnsafeRawPointer) -> Any? {
        flattenOptional(address.assumingMemoryBound(to: Self.self).pointee.value)
    }
}

/// Implemented by every `Observed<Value>` so key-value coding can read one without knowing `Value`.
protocol ObservedStorage: SendableMetatype {
    /// The type of the wrapped value.
    static var wrappedValueType: Any.Type { get }
    /// Reads the wrapped value of the `Observed` stored at `address`.
    static func readValue(at address: UnsafeRawPointer) -> Any?
}
