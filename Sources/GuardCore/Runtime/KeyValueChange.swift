import Foundation

/// One key-value observing notification: what changed, how, and (when asked for) the values around it.
///
/// `newValue` and `oldValue` are `nil` when the observer did not ask for them (or, for `newValue`, in a prior
/// notification). A property whose value is itself `nil` is reported as a boxed `Optional.none`, the way Foundation
/// reports `NSNull`, so "absent" and "nil" stay distinguishable; ``newValue(as:)`` and ``oldValue(as:)`` unwrap either.
public struct KeyValueChange {
    /// How the value changed, with Foundation's `NSKeyValueChange` raw values.
    public enum Kind: UInt, Sendable, Hashable, CaseIterable {
        /// The value was replaced as a whole (every `.initial` notification is a setting too).
        case setting = 1
        /// Elements were inserted into an ordered to-many property at `indexes`, or added to an unordered one (a set
        /// union; no indexes).
        case insertion = 2
        /// Elements were removed from an ordered to-many property at `indexes`, or from an unordered one (a set minus
        /// or intersection; no indexes).
        case removal = 3
        /// Elements of an ordered to-many property were replaced at `indexes`, or an unordered one's contents were
        /// set (no indexes).
        case replacement = 4
    }

    /// How the value changed.
    public let kind: Kind
    /// The key path the observer registered for (for a dotted path, the whole path).
    public let keyPath: String
    /// The value after the change, if `.new` was requested and this is not a prior notification. For to-many
    /// insertions and replacements, the array of inserted or replacing elements (of an unordered property, the
    /// `Set<AnyHashable>` of added elements).
    public let newValue: Any?
    /// The value before the change, if `.old` was requested and this is not an `.initial` notification. For to-many
    /// removals and replacements, the array of removed or replaced elements (of an unordered property, the
    /// `Set<AnyHashable>` of removed elements).
    public let oldValue: Any?
    /// The affected positions for insertion, removal and replacement of an ordered to-many property; `nil` for a
    /// setting and for an unordered property.
    public let indexes: IndexSet?
    /// `true` for the notification sent before the change when `.prior` was requested.
    public let isPrior: Bool

    /// Creates a change; the runtime builds these, and tests or custom backends may too.
    public init(
        kind: Kind, keyPath: String, newValue: Any? = nil, oldValue: Any? = nil, indexes: IndexSet? = nil,
        isPrior: Bool = false
    ) {
        self.kind = kind
        self.keyPath = keyPath
        self.newValue = newValue
        self.oldValue = oldValue
        self.indexes = indexes
        self.isPrior = isPrior
    }

    /// The new value cast to `T`, or `nil` if it is absent or of another type.
    @inlinable
    public func newValue<T>(as type: T.Type) -> T? {
        newValue.flatMap { $0 as? T }
    }

    /// The old value cast to `T`, or `nil` if it is absent or of another type.
    @inlinable
    public func oldValue<T>(as type: T.Type) -> T? {
        oldValue.flatMap { $0 as? T }
    }
}

extension KeyValueChange: CustomStringConvertible {
    /// A one-line rendering for logs and test failures.
    public var description: String {
        var parts = ["kind: \(kind)", "keyPath: \(keyPath)"]
        if isPrior { parts.append("prior") }
        if let oldValue { parts.append("old: \(oldValue)") }
        if let newValue { parts.append("new: \(newValue)") }
        if let indexes { parts.append("indexes: \(Array(indexes))") }
        return "KeyValueChange(" + parts.joined(separator: ", ") + ")"
    }
}
