import Foundation

/// The entries of Foundation's key-value observing change dictionary (`NSKeyValueChangeKey`), by their raw values.
public enum FoundationChangeField: String, CaseIterable, Sendable {
    /// `NSKeyValueChangeKindKey`: an `NSNumber` holding an `NSKeyValueChange` raw value.
    case kind
    /// `NSKeyValueChangeNewKey`: the value after the change (`NSNull` for nil); absent unless `.new` was asked for.
    case new
    /// `NSKeyValueChangeOldKey`: the value before the change (`NSNull` for nil); absent unless `.old` was asked for.
    case old
    /// `NSKeyValueChangeIndexesKey`: an `NSIndexSet` for insertions, removals and replacements.
    case indexes
    /// `NSKeyValueChangeNotificationIsPriorKey`: an `NSNumber` holding `true` in a `.prior` notification.
    case notificationIsPrior
}

extension KeyValueChange {
    /// Converts one of Foundation's change dictionaries, read entry by entry through `entry`.
    ///
    /// - `kind` becomes ``Kind`` (an unknown or missing kind reads as ``Kind/setting``);
    /// - `new` / `old` become ``newValue`` / ``oldValue``, with `NSNull` turned into a boxed `Optional.none` (present
    ///   but nil, exactly as GuardCore's runtime reports a nil value) and a missing entry into `nil` (not asked for);
    /// - `indexes` becomes an `IndexSet`; `notificationIsPrior` becomes ``isPrior``.
    ///
    /// `keyPath` is the key path the observer registered for; Foundation passes it beside the dictionary.
    public init(keyPath: String, foundationChange entry: (FoundationChangeField) -> Any?) {
        self.init(
            kind: Self.kind(from: entry(.kind)), keyPath: keyPath, newValue: Self.value(from: entry(.new)),
            oldValue: Self.value(from: entry(.old)), indexes: Self.indexes(from: entry(.indexes)),
            isPrior: Self.flag(from: entry(.notificationIsPrior)))
    }

    /// Converts a change dictionary keyed by the raw values of ``FoundationChangeField``.
    public init(keyPath: String, foundationChange dictionary: [String: Any]) {
        self.init(keyPath: keyPath) { dictionary[$0.rawValue] }
    }

    /// This change as Foundation's change dictionary (keyed by the raw values of ``FoundationChangeField``): the
    /// inverse of the dictionary initializer, with a present-but-nil value as `NSNull`.
    public var foundationChange: [String: Any] {
        var dictionary: [String: Any] = [FoundationChangeField.kind.rawValue: NSNumber(value: kind.rawValue)]
        if let newValue { dictionary[FoundationChangeField.new.rawValue] = Self.foundationValue(newValue) }
        if let oldValue { dictionary[FoundationChangeField.old.rawValue] = Self.foundationValue(oldValue) }
        if let indexes { dictionary[FoundationChangeField.indexes.rawValue] = NSIndexSet(indexSet: indexes) }
        if isPrior { dictionary[FoundationChangeField.notificationIsPrior.rawValue] = NSNumber(value: true) }
        return dictionary
    }

    private static func kind(from raw: Any?) -> Kind {
        unsignedInteger(from: raw).flatMap(Kind.init(rawValue:)) ?? .setting
    }

    private static func unsignedInteger(from raw: Any?) -> UInt? {
        switch raw {
        case let value as UInt: return value
        case let value as Int: return value >= 0 ? UInt(value) : nil
        case let value as NSNumber: return value.uintValue
        default: return nil
        }
    }

    private static func flag(from raw: Any?) -> Bool {
        switch raw {
        case let value as Bool: return value
        case let value as NSNumber: return value.boolValue
        default: return false
        }
    }

    private static func value(from raw: Any?) -> Any? {
        guard let raw else { return nil }
        if raw is NSNull { return Optional<Any>.none as Any }
        return raw
    }

    private static func indexes(from raw: Any?) -> IndexSet? {
        switch raw {
        case let value as IndexSet: return value
        case let value as NSIndexSet: return IndexSet(value)
        default: return nil
        }
    }

    /// `NSNull` for a present-but-nil value (a boxed `Optional.none`, at any depth), else the value.
    private static func foundationValue(_ value: Any) -> Any {
        var current = value
        while let optional = current as? any FoundationOptional {
            guard let wrapped = optional.wrappedIfSome else { return NSNull() }
            current = wrapped
        }
        return current
    }
}

/// Lets ``KeyValueChange/foundationChange`` see through `Optional` without knowing its `Wrapped` type.
private protocol FoundationOptional {
    var wrappedIfSome: Any? { get }
}

extension Optional: FoundationOptional {
    fileprivate var wrappedIfSome: Any? {
        switch self {
        case .none: return nil
        case .some(let wrapped): return wrapped
        }
    }
}
