
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
/// with Foundation): serialize them yourself. So is a set concurrent with a read of the property on another thread,
/// including the reads observation makes there: `observe` with `.initial` or `.new` reads the value, and a dotted
/// key path reads each object on the way, on the thread that observes. Observation bookkeeping, by contrast, is
/// fully thread-safe.
@propertyWrapper
public struct Observed<Value> {
    @usableFromInline var value: Value
    @usableFromInline var key: ObservedKey?
    /// `key.bit` once the key is known, else 0: the word the setter tests against the object's mask. A copy, so the
    /// test loads one word and never touches the optional key or its name string.
    @usableFromInline var keyBit: UInt64

    /// Creates the storage with an initial value.
    public init(wrappedValue: Value) {
        self.value = wrappedValue
        self.key = nil
        self.keyBit = 0
    }

    /// The accessors Swift uses for `@Observed` properties of classes: reads are plain (plus a probe check for
    /// typed key path resolution); writes announce the change when someone observes the key. Always inlined into
    /// the property's own accessors, where the key paths are literals: only there do they fold into field accesses
    /// (called instead, the same code projects them through the runtime, about fifteen times the cost), so the
    /// unobserved path is one atomic load and the store.
    ///
    /// The storage key path is used only for projections the optimizer folds into field accesses, never as a value:
    /// a storage key path used as a value anywhere in the declaring module makes the compiler keep Swift's dynamic
    /// exclusivity check (`swift_beginAccess`) on every access of the storage, while without one whole-module
    /// optimization proves the accesses cannot overlap and drops the check. So an unobserved set is the atomic load
    /// and the store. The probe identifies the storage by its address instead. The getter hands the wrapped key path
    /// (which the probe compares with the one it names) to the probe only inside a closure the probe calls: passed as
    /// a value, it would be materialized on every read (`swift_getKeyPath`, a retain and a release of one object that
    /// every thread reading the property shares, so reads on two threads ran no faster than on one), even though only
    /// a probe uses it. A read is then the probe check and the load.
    @inlinable @inline(__always)
    public static subscript<Object: KVOObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            // Only the probing thread takes the storage's address (a modifying access): on any other thread that
            // access would race with other threads' reads of the same property.
            if KeyNameProbe.activeProbes.load(ordering: .relaxed) != 0, KeyNameProbe.isProbingOnCurrentThread {
                let storage = withUnsafeMutablePointer(to: &object[keyPath: storageKeyPath]) { UnsafeRawPointer($0) }
                KeyNameProbe.recordIfProbing(wrapped: { wrappedKeyPath }, storage: storage, in: object)
            }
            return object[keyPath: storageKeyPath].value
        }
        set {
            let announced = object.announcedKeys.load(ordering: .acquiring)
            if announced == 0 {
                object[keyPath: storageKeyPath].value = newValue
                return
            }
            let bit = object[keyPath: storageKeyPath].keyBit
            if bit != 0, announced & bit == 0 {
                object[keyPath: storageKeyPath].value = newValue
                return
            }
            // The storage of a class instance's stored property never moves, and the caller keeps `object` alive
            // for the whole set, so its address stays valid after the projection's access ends.
            let storage = withUnsafeMutablePointer(to: &object[keyPath: storageKeyPath]) { $0 }
            setAnnouncing(newValue, on: object, storage: storage)
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
    @inlinable @inline(never)
    static func setAnnouncing(_ newValue: Value, on object: KVOObject, storage: UnsafeMutablePointer<Self>) {
        let key = storage.pointee.key ?? resolveKey(on: object, storage: storage)
        guard object.announcedKeysForAnnouncing & key.bit != 0 else {
            storage.pointee.value = newValue
            return
        }
        ChangeAnnouncer.announceSetting(
            of: key, on: object, currentValue: { storage.pointee.value }, store: { storage.pointee.value = newValue })
    }

    /// Learns the property's key from where its storage lies in `object` (cached per class and offset) and
    /// remembers it in the property itself.
    @usableFromInline
    static func resolveKey(on object: KVOObject, storage: UnsafeMutablePointer<Self>) -> ObservedKey {
        let offset = UnsafeRawPointer(storage) - UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        let key = ObservedKey.resolve(
            offset: offset, in: type(of: object), valueIsOptional: Value.self is any OptionalProtocol.Type)
        SchedulePoints.access(object, .resolvedKeys, .write)
        storage.pointee.key = key
        storage.pointee.keyBit = key.bit
        return key
    }
}

extension Observed: ObservedStorage {
    static var wrappedValueType: Any.Type { Value.self }

    static func readValue(at address: UnsafeRawPointer) -> Any? {
        flattenOptional(address.assumingMemoryBound(to: Self.self).pointee.value)
    }

    static var keyValueStorer: @Sendable (Any?) -> KeyValueStore {
        KeyValueStore.storer(for: Value.self) { value, object, address in
            setAnnouncing(value, on: object, storage: address.assumingMemoryBound(to: Self.self))
        }
    }
}

/// Implemented by every `Observed<Value>` so key-value coding can read one without knowing `Value`.
protocol ObservedStorage: SendableMetatype {
    /// The type of the wrapped value.
    static var wrappedValueType: Any.Type { get }
    /// Reads the wrapped value of the `Observed` stored at `address`.
    static func readValue(at address: UnsafeRawPointer) -> Any?
    /// Checks a value for a key-value coding set; the store sets it as the property's setter does, announcing it.
    static var keyValueStorer: @Sendable (Any?) -> KeyValueStore { get }
}
