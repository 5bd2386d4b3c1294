extension KVOObject {
    /// The value at a dotted key path (`"account.balance"`): each key but the last must name a ``KVOObject``.
    /// Returns `nil` if an intermediate value is `nil`; an intermediate that is not a `KVOObject` is an unknown key.
    public func value(forKeyPath keyPath: String) -> Any? {
        guard let dot = keyPath.firstIndex(of: ".") else { return value(forKey: keyPath) }
        let first = String(keyPath[..<dot])
        let rest = String(keyPath[keyPath.index(after: dot)...])
        guard let next = value(forKey: first) else { return nil }
        guard let nextObject = next as? KVOObject else {
            return valueForUndefinedKey(keyPath)
        }
        return nextObject.value(forKeyPath: rest)
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

/// Lets ``KVOObject/isKnownKey(_:)`` ask `value(forKey:)` about a key without triggering the unknown-key misuse.
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

    /// Called by the default `valueForUndefinedKey`; returns `true` (and records it) while a probe is running.
    static func noteUndefinedKey() -> Bool {
        guard let state = threadState.valueIfCreated, state.depth > 0 else { return false }
        state.sawUndefinedKey = true
        return true
    }
}
