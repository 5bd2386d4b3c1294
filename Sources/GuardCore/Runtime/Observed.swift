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
    var value: Value
    var key: ObservedKey?

    /// Creates the storage with an initial value.
    public init(wrappedValue: Value) {
        self.value = wrappedValue
        self.key = nil
    }

    /// The accessors Swift uses for `@Observed` properties of classes: reads are plain (plus a probe check for
    /// typed key path resolution); writes announce the change when someone observes the key.
    public static subscript<Object: KVOObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            if KeyNameProbe.isRecording {
                KeyNameProbe.record(wrapped: wrappedKeyPath, storage: storageKeyPath)
            }
            return object[keyPath: storageKeyPath].value
        }
        set {
            if object.announcedKeys.load(ordering: .acquiring) == 0 {
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

    private static func setAnnouncing<Object: KVOObject>(
        _ newValue: Value, on object: Object, storage: ReferenceWritableKeyPath<Object, Self>
    ) {
        let key: ObservedKey
        if let resolved = object[keyPath: storage].key {
            key = resolved
        } else {
            key = ObservedKey.resolve(storage: storage)
            object[keyPath: storage].key = key
        }
        guard object.announcedKeys.load(ordering: .acquiring) & key.bit != 0 else {
            object[keyPath: storage].value = newValue
            return
        }
        ChangeAnnouncer.announceSetting(
            of: key.name, on: object,
            currentValue: { object[keyPath: storage].value },
            newValue: newValue,
            store: { object[keyPath: storage].value = newValue })
    }
}

extension Observed: ObservedStorage {
    static func readValue(at address: UnsafeRawPointer) -> Any? {
        flattenOptional(address.assumingMemoryBound(to: Self.self).pointee.value)
    }
}

/// Implemented by every `Observed<Value>` so key-value coding can read one without knowing `Value`.
protocol ObservedStorage: SendableMetatype {
    /// Reads the wrapped value of the `Observed` stored at `address`.
    static func readValue(at address: UnsafeRawPointer) -> Any?
}
