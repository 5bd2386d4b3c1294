extension KVOObject {
    /// The value at a dotted key path (`"account.balance"`): each key but the last must name a ``KVOObject``.
    /// Returns `nil` if an intermediate value is `nil`; an intermediate that is not a `KVOObject` does not know the
    /// next key: the misuse ``KVOMisuse/Kind/unknownKey``, naming that value and that key (as Foundation's
    /// `NSUnknownKeyException` from the intermediate value would). Key paths are split at "." scalars (see
    /// ``KeyPathSyntax``).
    public func value(forKeyPath keyPath: String) -> Any? {
        // A loop, not a recursion: a key path of any length reads in constant stack.
        var object: KVOObject = self
        var remaining = keyPath
        while true {
            let (first, rest) = KeyPathSyntax.split(remaining)
            guard let rest else { return object.value(forKey: remaining) }
            guard let next = object.value(forKey: first) else { return nil }
            guard let nextObject = next as? KVOObject else {
                if UndefinedKeyProbe.noteUndefinedKey() { return nil }
                RuntimeMonitor.handle(MisuseMessages.unknownKey(in: next, key: KeyPathSyntax.firstKey(of: rest)))
                return nil
            }
            object = nextObject
            remaining = rest
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
