import GuardCoreAtomics

/// The base class of objects that can be key-value observed on any platform: GuardCore's `NSObject`.
///
/// Subclass it and mark each observed stored property with ``Observed``:
///
/// ```swift
/// final class Person: KVOObject {
///     @Observed var name = ""
///     @Observed var age = 0
/// }
/// ```
///
/// Observers register with ``addObserver(_:forKeyPath:options:context:)`` and are notified synchronously on the
/// thread that makes the change. The object keeps its observation state to itself (no process-wide table) and
/// allocates it only when first observed; setting a property nobody observes costs one atomic load.
///
/// Override ``automaticallyNotifiesObservers(forKey:)``, ``keyPathsForValuesAffectingValue(forKey:)``,
/// ``value(forKey:)`` and ``setValue(_:forKey:)`` exactly as with Foundation to opt out of automatic notification,
/// declare dependent keys, and expose (and set) computed keys.
open class KVOObject {
    // The first two stored properties are atomic words reached through ``InlineAtomicWords`` only: keep them first.
    /// Word 0: the ``KeyBit``s of every key whose change must be announced; zero while nobody observes the object.
    private var announcedKeysWord = gca_word()
    /// Word 1: the object's ``ObservationTable`` (a retained pointer), zero until the first registration.
    private var tableWord = gca_word()

    /// The ``KeyBit``s of every key whose change must be announced; zero while nobody observes the object.
    @inlinable
    var announcedKeys: AtomicWord {
        InlineAtomicWords.word(0, of: self)
    }

    /// ``announcedKeys`` loaded by a set that takes the announcing path, the load announced to ``SchedulePoints`` (the
    /// unobserved set's own load is not: whoever sets says so, see ``SharedWord/announcedKeys``).
    @usableFromInline
    var announcedKeysForAnnouncing: UInt64 {
        SchedulePoints.access(self, .announcedKeys, .read)
        return announcedKeys.load(ordering: .acquiring)
    }

    private var tableStorage: AtomicWord {
        InlineAtomicWords.word(1, of: self)
    }

    /// Creates an object with no observers.
    public init() {
        SchedulePoints.created(self)
    }

    deinit {
        // The subclass's deinit body has run: changes it began and left pending end with it.
        ManualChanges.objectDidDeinit(ObjectIdentifier(self))
        SchedulePoints.access(self, .observationTable, .read)
        guard let unmanaged = Self.table(fromBits: tableStorage.load(ordering: .acquiring)) else { return }
        let table = unmanaged.takeUnretainedValue()
        let clearance = table.removeAll()
        let remaining = clearance.observances
        publish(mask: 0)
        RuntimeMonitor.observancesRemoved(remaining.count)
        var stillObserved: [Observance] = []
        for observance in remaining {
            if observance.isDotted { table.detachForwarder(of: observance)?.detach() }
            if observance.dropsWithObject {
                observance.announceObjectDeinit()
            } else if !observance.isGuarded {
                stillObserved.append(observance)
            }
        }
        if !stillObserved.isEmpty {
            RuntimeMonitor.handle(
                MisuseMessages.deallocatedWhileObserved(
                    objectType: type(of: self), objectAddress: ObjectDescription.address(of: self),
                    observances: stillObserved))
        }
        withExtendedLifetime(clearance) {}
        unmanaged.release()
    }

    // MARK: Class-level customization, as in Foundation

    /// Whether setting `key` through an ``Observed`` property notifies observers automatically. Defaults to
    /// `true`; return `false` for a key you announce yourself with ``willChangeValue(forKey:)`` and
    /// ``didChangeValue(forKey:)``.
    open class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        true
    }

    /// The keys whose change also changes `key` (for example `["firstName", "lastName"]` for `"fullName"`).
    /// Observers of `key` are notified whenever one of them changes. Dependencies are followed transitively. A dotted
    /// entry is triggered by changes of its first key.
    open class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
        []
    }

    // MARK: Key-value coding

    /// The value for `key`, read the way key-value coding does: ``Observed`` properties and other stored properties
    /// by name, `lazy` ones included. Override it to answer computed keys, and call `super` for the rest. An unknown
    /// key goes to ``valueForUndefinedKey(_:)``, and so does a stored property key-value coding cannot copy: an
    /// `unowned(unsafe)` one (its object may be gone without a trace), or one reflection reports as `()` (a
    /// noncopyable type, or a property declared `()`).
    ///
    /// A `weak` property reads as its object, or `nil` once the object is gone; an `unowned` one as its object (if
    /// that object has been deinitialized, the read stops the process, as reading the property in Swift does). Both
    /// are read through the Swift runtime's weak and unowned loads, never as strong references. Observing one works
    /// like observing any stored property: ``setValue(_:forKey:)`` announces a set, a plain assignment does not (pair
    /// it with ``willChangeValue(forKey:)`` and ``didChangeValue(forKey:)``), and a weak property's turning `nil`
    /// when its object goes away is never announced, as in Foundation.
    ///
    /// A `lazy` property is read from its storage once it has been initialized. Before its first read it has no value
    /// to read: its initializer runs only in its getter, which reflection cannot call, so it goes to
    /// ``valueForUndefinedKey(_:)`` as well (by default the misuse ``KVOMisuse/Kind/unknownKey``, whose message says
    /// so) rather than reading as `nil`. Read it once first, or override this method to answer it through its getter.
    open func value(forKey key: String) -> Any? {
        if let property = StoredPropertyTable.for(type(of: self)).property(named: key) {
            if property.isUninitialized(in: self) { return valueForUndefinedKey(key) }
            return property.read(from: self)
        }
        return valueForUndefinedKey(key)
    }

    /// Called by ``value(forKey:)`` for a key it does not know. The default reports the misuse
    /// ``KVOMisuse/Kind/unknownKey`` (Foundation raises `NSUnknownKeyException`) and returns `nil`.
    open func valueForUndefinedKey(_ key: String) -> Any? {
        if UndefinedKeyProbe.noteUndefinedKey() { return nil }
        RuntimeMonitor.handle(MisuseMessages.unknownKey(object: self, key: key))
        return nil
    }

    /// Sets the value for `key` the way key-value coding does, Foundation's `setValue(_:forKey:)`, and announces the
    /// change as the property's own setter would: observers of `key` and of keys that depend on it are notified
    /// (prior, old and new values as they asked), unless ``automaticallyNotifiesObservers(forKey:)`` says no.
    ///
    /// Settable are the keys ``value(forKey:)`` reads from stored properties that are `var`s: ``Observed``
    /// properties (set through the property wrapper, exactly as an assignment would), plain stored properties, `lazy`
    /// ones (stored as if read first), and `weak` and `unowned` ones (through the Swift runtime's weak and unowned
    /// stores). A `let` is never set, nor is a computed key: override this method to set your computed keys, and call
    /// `super` for the rest. Then:
    /// - a key that is not settable goes to ``setValue(_:forUndefinedKey:)``;
    /// - `nil` for a property that is not optional goes to ``setNilValueForKey(_:)``;
    /// - a value of another type is the misuse ``KVOMisuse/Kind/typeMismatch``, and nothing is stored. A number is
    ///   converted to the property's number type when that holds it exactly (`3` for a `Double`), as Foundation
    ///   unboxes an `NSNumber` into a scalar property.
    ///
    /// The value goes straight into the property's storage (for an ``Observed`` property, through its wrapper): Swift
    /// cannot call a property's setter by name, so `willSet` and `didSet` observers declared on the property do not
    /// run. Override this method for a key whose setter must run.
    open func setValue(_ value: Any?, forKey key: String) {
        guard let property = StoredPropertyTable.for(type(of: self)).property(named: key), let storer = property.storer
        else {
            setValue(value, forUndefinedKey: key)
            return
        }
        switch storer(value) {
        case .store(let store):
            KeyValueSetting.run(store, of: property, key: key, on: self)
        case .nilForNonOptional:
            setNilValueForKey(key)
        case .wrongType(let expected):
            RuntimeMonitor.handle(MisuseMessages.typeMismatch(object: self, key: key, value: value, expected: expected))
        }
    }

    /// Called by ``setValue(_:forKey:)`` for a key it cannot set. The default reports the misuse
    /// ``KVOMisuse/Kind/unknownKey`` (Foundation raises `NSUnknownKeyException` from `setValue:forUndefinedKey:`);
    /// nothing is stored.
    open func setValue(_ value: Any?, forUndefinedKey key: String) {
        RuntimeMonitor.handle(MisuseMessages.unknownKeyForSetting(object: self, key: key))
    }

    /// Called by ``setValue(_:forKey:)`` when it is given `nil` for a property that is not optional. The default
    /// reports the misuse ``KVOMisuse/Kind/nilValueForNonOptional`` (Foundation raises `NSInvalidArgumentException`
    /// from `setNilValueForKey:`); nothing is stored. Override it to store a value that stands for nil (0, say).
    open func setNilValueForKey(_ key: String) {
        RuntimeMonitor.handle(MisuseMessages.nilValueForNonOptional(object: self, key: key))
    }

    // MARK: Internal state access

    /// The table, if the object was ever observed.
    var existingTable: ObservationTable? {
        existingTableReference?.takeUnretainedValue()
    }

    /// The table without a strong reference to it: the object holds its table for its whole life, so code that uses
    /// the table only while the object lives needs none.
    var existingTableReference: Unmanaged<ObservationTable>? {
        SchedulePoints.access(self, .observationTable, .read)
        return Self.table(fromBits: tableStorage.load(ordering: .acquiring))
    }

    /// `object` as a ``KVOObject``, if it is one, without a strong reference to it: the caller keeps `object` alive
    /// while it uses the result. (A check of the object's class and an unchecked downcast: unlike `as?` or `is`, which
    /// retain and release the object around the check, no reference counting.)
    static func unretained(_ object: AnyObject) -> Unmanaged<KVOObject>? {
        guard KVOObjectClasses.contains(type(of: object)) else { return nil }
        return Unmanaged.passUnretained(unsafeDowncast(object, to: KVOObject.self))
    }

    /// The observation table of `object`, if it is a ``KVOObject`` that has one, retaining neither.
    static func existingTableReference(of object: AnyObject) -> Unmanaged<ObservationTable>? {
        unretained(object)?._withUnsafeGuaranteedRef { $0.existingTableReference }
    }

    /// The table, created now if needed.
    var table: ObservationTable {
        if let existing = existingTable { return existing }
        let created = Unmanaged.passRetained(ObservationTable())
        let bits = UInt64(UInt(bitPattern: created.toOpaque()))
        let (exchanged, original) = tableStorage.compareExchange(expected: 0, desired: bits)
        SchedulePoints.access(self, .observationTable, exchanged ? .write : .read)
        if exchanged { return created.takeUnretainedValue() }
        created.release()
        return Self.table(fromBits: original)!.takeUnretainedValue()
    }

    private static func table(fromBits bits: UInt64) -> Unmanaged<ObservationTable>? {
        UnsafeRawPointer(bitPattern: UInt(truncatingIfNeeded: bits)).map { Unmanaged.fromOpaque($0) }
    }

    /// Publishes the table's new key mask to setters.
    func publish(mask: UInt64) {
        SchedulePoints.access(self, .announcedKeys, .write)
        announcedKeys.store(mask, ordering: .releasing)
    }
}
