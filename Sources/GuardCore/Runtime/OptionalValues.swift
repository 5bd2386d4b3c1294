/// `nil` for a value that is an `Optional.none` (at any depth), else the value itself.
func flattenOptional(_ value: Any) -> Any? {
    if let optional = value as? any OptionalProtocol {
        return optional.flattened
    }
    return value
}

/// Lets ``flattenOptional(_:)`` see through `Optional` without knowing its `Wrapped` type.
protocol OptionalProtocol {
    var flattened: Any? { get }
    /// Whether this (outermost) optional is `.none`.
    var isNone: Bool { get }
    /// The `Wrapped` type.
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalProtocol {
    static var wrappedType: Any.Type { Wrapped.self }

    var isNone: Bool {
        if case .none = self { return true }
        return false
    }

    var flattened: Any? {
        switch self {
        case .none: return nil
        case .some(let wrapped): return flattenOptional(wrapped)
        }
    }
}

/// A present-but-nil value as the change carries it: a boxed `Optional<Any>.none`, so that `nil` keeps meaning
/// "not requested".
func boxNil(_ value: consuming Any?) -> Any? {
    switch consume value {
    case .none: return Optional<Any>.none as Any
    case .some(let value): return value
    }
}
