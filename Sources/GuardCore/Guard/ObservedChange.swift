import Foundation

/// A ``KeyValueChange`` with its values typed, for handlers registered with a Swift key path.
public struct ObservedChange<Value> {
    /// How the value changed.
    public let kind: KeyValueChange.Kind
    /// The key path the handler was registered for.
    public let keyPath: String
    /// The value after the change, if `.new` was requested (and this is not a prior notification).
    public let newValue: Value?
    /// The value before the change, if `.old` was requested (and this is not an `.initial` notification).
    public let oldValue: Value?
    /// Changed positions of an ordered to-many property; `nil` for a setting.
    public let indexes: IndexSet?
    /// `true` for the notification sent before the change when `.prior` was requested.
    public let isPrior: Bool
    /// The untyped change this one was made from.
    public let change: KeyValueChange

    /// Types `change`'s values as `Value` (a value of another type reads as `nil`). Inlinable, so the casts are
    /// specialized for the caller's `Value` instead of looking its type up on every notification.
    @inlinable
    public init(_ change: KeyValueChange) {
        self.kind = change.kind
        self.keyPath = change.keyPath
        self.newValue = change.newValue(as: Value.self)
        self.oldValue = change.oldValue(as: Value.self)
        self.indexes = change.indexes
        self.isPrior = change.isPrior
        self.change = change
    }
}
