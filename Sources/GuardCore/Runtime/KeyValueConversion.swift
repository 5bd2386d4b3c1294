import Foundation

/// Turns the `Any?` handed to ``KVOObject/setValue(_:forKey:)`` into a value of the property's type.
///
/// - A value of the type (or one Swift's `as?` converts to it, an `NSNumber` to `Int` say) is taken as it is; into an
///   optional property it is wrapped.
/// - A number of another numeric type is converted when the property's type holds it exactly (`3` into a `Double`,
///   `2.0` into an `Int`), as Foundation unboxes an `NSNumber` into any scalar property; `2.5` into an `Int` is not.
/// - `nil` (or an `Optional.none` of any type) goes into an optional property; into a non-optional one it is
///   ``Outcome/nilForNonOptional``.
/// - Anything else is ``Outcome/wrongType``.
enum KeyValueConversion {
    enum Outcome<Value> {
        case value(Value)
        case nilForNonOptional
        case wrongType
    }

    static func convert<Value>(_ value: Any?, to _: Value.Type) -> Outcome<Value> {
        guard let value = value.flatMap(flattenOptional) else {
            if let none = Optional<Any>.none as Any as? Value { return .value(none) }
            return .nilForNonOptional
        }
        if let converted = value as? Value { return .value(converted) }
        if let converted = numeric(value, as: Value.self) { return .value(converted) }
        return .wrongType
    }

    /// `value`, a number, as a `Value` that is a number type (or an optional of one) holding it exactly.
    private static func numeric<Value>(_ value: Any, as _: Value.Type) -> Value? {
        if let integer = Value.self as? any BinaryInteger.Type {
            return exactInteger(value, as: integer) as? Value
        }
        if let floatingPoint = Value.self as? any BinaryFloatingPoint.Type {
            return exactFloatingPoint(value, as: floatingPoint) as? Value
        }
        if let optional = Value.self as? any OptionalProtocol.Type {
            func wrapped<Wrapped>(_: Wrapped.Type) -> Value? {
                numeric(value, as: Wrapped.self).flatMap { $0 as Any as? Value }
            }
            return _openExistential(optional.wrappedType, do: wrapped)
        }
        return nil
    }

    private static func exactInteger<Integer: BinaryInteger>(_ value: Any, as _: Integer.Type) -> Integer? {
        if let integer = value as? any BinaryInteger { return Integer(exactly: integer) }
        if let floatingPoint = value as? any BinaryFloatingPoint {
            return floatingPoint.isFinite ? Integer(exactly: floatingPoint) : nil
        }
        if let number = value as? NSNumber {
            let double = number.doubleValue
            guard double.rounded() == double else { return nil }
            return double < 0 ? Integer(exactly: number.int64Value) : Integer(exactly: number.uint64Value)
        }
        return nil
    }

    private static func exactFloatingPoint<Float: BinaryFloatingPoint>(_ value: Any, as _: Float.Type) -> Float? {
        if let integer = value as? any BinaryInteger { return Float(exactly: integer) }
        if let floatingPoint = value as? any BinaryFloatingPoint {
            // `Float(exactly:)` refuses a NaN; a NaN is a NaN in any width.
            return floatingPoint.isNaN ? Float.nan : Float(exactly: floatingPoint)
        }
        if let number = value as? NSNumber { return Float(exactly: number.doubleValue) }
        return nil
    }
}
