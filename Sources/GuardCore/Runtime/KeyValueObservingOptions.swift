/// What a key-value observer wants to receive, with Foundation's `NSKeyValueObservingOptions` values.
public struct KeyValueObservingOptions: OptionSet, Sendable, Hashable {
    /// Foundation's option bits.
    public let rawValue: UInt

    /// Creates options from Foundation's raw bits.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Change notifications carry the value after the change (`KeyValueChange.newValue`).
    public static let new = KeyValueObservingOptions(rawValue: 0x01)
    /// Change notifications carry the value before the change (`KeyValueChange.oldValue`).
    public static let old = KeyValueObservingOptions(rawValue: 0x02)
    /// One notification is sent from inside `addObserver`, before it returns, with the current value if `.new`
    /// is also set and never with an old value.
    public static let initial = KeyValueObservingOptions(rawValue: 0x04)
    /// An extra notification is sent before each change, with `isPrior == true`, never a new value, and the old
    /// value if `.old` is also set.
    public static let prior = KeyValueObservingOptions(rawValue: 0x08)
}

extension KeyValueObservingOptions: CustomStringConvertible {
    /// Foundation's rendering in observation info: `<New: YES, Old: NO, Prior: NO>`, plus `Initial` when set.
    public var description: String {
        func flag(_ option: KeyValueObservingOptions) -> String { contains(option) ? "YES" : "NO" }
        var text = "<New: \(flag(.new)), Old: \(flag(.old)), Prior: \(flag(.prior))"
        if contains(.initial) { text += ", Initial: YES" }
        return text + ">"
    }
}
