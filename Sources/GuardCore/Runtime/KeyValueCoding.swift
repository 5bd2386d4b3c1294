extension KVOObject {
    /// The value at a dotted key path (`"account.balance"`), read key by key with ``value(forKey:)``. Returns `nil` if
    /// an intermediate value is `nil`. Past a value that is not a ``KVOObject`` the read goes on as Foundation's does:
    /// - Through an array or a set, the rest of the key path is read from each element: `items.name` is an array of
    ///   every item's name, in the collection's order (a nil name keeps its place as a boxed `Optional<Any>.none`,
    ///   where Foundation puts `NSNull`; for a set it is left out). A nil element reads as nil.
    /// - A collection operator applies to the collection before it, with the rest as its right key path:
    ///   `@count` (an `Int`; needs no right key path); `@sum` and `@avg` (an `NSNumber`, which `as? Int` and
    ///   `as? Double` read; nil values count as 0; `@avg` of an empty collection is `nil`); `@max` and `@min` (the
    ///   value itself, nil values skipped); `@unionOfObjects` and `@distinctUnionOfObjects` (arrays of the values,
    ///   nil ones left out); `@unionOfArrays`, `@distinctUnionOfArrays` and `@distinctUnionOfSets` (arrays of the
    ///   elements of the values). A value an operator cannot use is the misuse ``KVOMisuse/Kind/typeMismatch``; an
    ///   operator Foundation does not have is ``KVOMisuse/Kind/unknownCollectionOperator``.
    /// - `self` is the value itself (`items.@sum.self` for an array of numbers).
    /// - Any other value does not know the next key: the misuse ``KVOMisuse/Kind/unknownKey``, naming that value and
    ///   that key (as Foundation's `NSUnknownKeyException` from the intermediate value would).
    ///
    /// Key paths are split at "." scalars (see ``KeyPathSyntax``).
    public func value(forKeyPath keyPath: String) -> Any? {
        // A loop, not a recursion: a key path of any length through objects reads in constant stack.
        var object: KVOObject = self
        var remaining = keyPath
        while true {
            let (first, rest) = KeyPathSyntax.split(remaining)
            guard let rest else { return object.value(forKey: remaining) }
            guard let next = object.value(forKey: first) else { return nil }
            guard let nextObject = next as? KVOObject else {
                return CollectionKeyValueCoding.value(of: next, forKeyPath: rest)
            }
            object = nextObject
            remaining = rest
        }
    }

    /// Sets the value at a dotted key path, Foundation's `setValue(_:forKeyPath:)`: reads every key but the last with
    /// ``value(forKey:)`` and calls ``setValue(_:forKey:)`` on the object that holds the last, which announces the
    /// change. A `nil` along the way sets nothing. An array or a set along the way gets the rest of the key path set
    /// on each of its elements (Foundation's `NSArray.setValue(_:forKey:)`). A value that is neither a
    /// ``KVOObject`` nor a collection does not know the next key: the misuse ``KVOMisuse/Kind/unknownKey``.
    public func setValue(_ value: Any?, forKeyPath keyPath: String) {
        var object: KVOObject = self
        var remaining = keyPath
        while true {
            let (first, rest) = KeyPathSyntax.split(remaining)
            guard let rest else {
                object.setValue(value, forKey: remaining)
                return
            }
            guard let next = object.value(forKey: first) else { return }
            guard let nextObject = next as? KVOObject else {
                Self.setValue(value, forKeyPath: rest, in: next)
                return
            }
            object = nextObject
            remaining = rest
        }
    }

    /// Sets `value` at `keyPath` in `target`, a value met along a key path: on each element of a collection.
    private static func setValue(_ value: Any?, forKeyPath keyPath: String, in target: Any) {
        guard let target = flattenOptional(target) else { return }
        if let object = target as? KVOObject {
            object.setValue(value, forKeyPath: keyPath)
        } else if let collection = target as? any KeyValueCodingCollection {
            for element in collection.keyValueCodingElements {
                setValue(value, forKeyPath: keyPath, in: element)
            }
        } else {
            RuntimeMonitor.handle(MisuseMessages.unknownKeyForSetting(in: target, key: KeyPathSyntax.firstKey(of: keyPath)))
        }
    }

    /// Whether `key` (one component) is a key this object answers, without reporting a misuse if it is not.
    func isKnownKey(_ key: String) -> Bool {
        if key.isEmpty { return false }
        if StoredPropertyTable.for(type(of: self)).property(named: key) != nil { return true }
        if ObservedClassInfo.isKnownComputedKey(key, of: type(of: self)) { return true }
        let known = UndefinedKeyProbe.probe { _ = value(forKey: key) }
        if known { ObservedClassInfo.noteKnownComputedKey(key, of: type(of: self)) }
        return known
    }
}

/// Reads values for the runtime and the guard, either the way key-value coding does (an unknown key is the misuse
/// ``KVOMisuse/Kind/unknownKey``) or quietly (an unknown key reads as `nil`), for registrations that must never let
/// a misuse reach the runtime.
enum KeyValueReading {
    /// The value for `key` of `object`.
    static func value(of object: KVOObject, forKey key: String, reportingMisuse: Bool) -> Any? {
        reportingMisuse ? object.value(forKey: key) : UndefinedKeyProbe.quietly { object.value(forKey: key) }
    }

    /// The value at `keyPath` of `object`.
    static func value(of object: KVOObject, forKeyPath keyPath: String, reportingMisuse: Bool) -> Any? {
        reportingMisuse
            ? object.value(forKeyPath: keyPath) : UndefinedKeyProbe.quietly { object.value(forKeyPath: keyPath) }
    }
}

/// Lets ``KVOObject/isKnownKey(_:)`` ask `value(forKey:)` about a key without triggering the unknown-key misuse, and
/// lets quiet reads (``KeyValueReading``) read a broken chain as `nil`.
enum UndefinedKeyProbe {
    private final class ThreadState {
        var depth = 0
        var sawUndefinedKey = false
    }

    private static let threadState = ThreadLocal { ThreadState() }

    /// Runs `body` and returns `true` if no undefined key was reported during it.
    static func probe(_ body: () -> Void) -> Bool {
        let state = threadState.value
        let outer = state.sawUndefinedKey
        state.depth += 1
        state.sawUndefinedKey = false
        body()
        let sawUndefined = state.sawUndefinedKey
        state.depth -= 1
        state.sawUndefinedKey = outer
        return !sawUndefined
    }

    /// Runs `body` with undefined keys read as `nil` instead of reported, and returns its result.
    static func quietly<Result>(_ body: () -> Result) -> Result {
        let state = threadState.value
        let outer = state.sawUndefinedKey
        state.depth += 1
        defer {
            state.depth -= 1
            state.sawUndefinedKey = outer
        }
        return body()
    }

    /// Called by the default `valueForUndefinedKey`; returns `true` (and records it) while a probe is running.
    static func noteUndefinedKey() -> Bool {
        guard let state = threadState.valueIfCreated, state.depth > 0 else { return false }
        state.sawUndefinedKey = true
        return true
    }
}
