import Foundation

/// A number a collection operator works with, read from a Swift integer or floating-point number, a `Bool` (0 or 1),
/// a `Decimal`, an `NSNumber` or an `NSDecimalNumber`.
enum NumericValue {
    case integer(Int)
    case double(Double)
    case decimal(Decimal)

    /// `value` as a number; `nil` if it is none.
    init?(_ value: Any) {
        if type(of: value) is AnyClass {
            // Only a Foundation number object; a Swift number boxed in `Any` is not an object.
            if let number = value as? NSDecimalNumber {
                self = .decimal(number.decimalValue)
            } else if let number = value as? NSNumber {
                let double = number.doubleValue
                let integer = number.int64Value
                self = Double(integer) == double ? .integer(Int(integer)) : .double(double)
            } else {
                return nil
            }
        } else if let decimal = value as? Decimal {
            self = .decimal(decimal)
        } else if let bool = value as? Bool {
            self = .integer(bool ? 1 : 0)
        } else if let integer = value as? any BinaryInteger {
            self = Int(exactly: integer).map(NumericValue.integer) ?? .double(Double(integer))
        } else if let floatingPoint = value as? any BinaryFloatingPoint {
            self = .double(Double(floatingPoint))
        } else {
            return nil
        }
    }

    /// The number as a `Double` (a `Decimal` rounded to the nearest one).
    var doubleValue: Double {
        switch self {
        case .integer(let integer): return Double(integer)
        case .double(let double): return double
        case .decimal(let decimal): return NSDecimalNumber(decimal: decimal).doubleValue
        }
    }

    /// The number as a `Decimal`; `nil` for a `Double`.
    var decimalValue: Decimal? {
        switch self {
        case .integer(let integer): return Decimal(integer)
        case .double: return nil
        case .decimal(let decimal): return decimal
        }
    }

    /// How this number compares with `other`: exactly for two integers or two decimals (or one of each), as `Double`s
    /// otherwise.
    func compare(with other: NumericValue) -> ComparisonResult {
        if case .integer(let a) = self, case .integer(let b) = other { return Self.order(a, b) }
        if let a = decimalValue, let b = other.decimalValue { return Self.order(a, b) }
        return Self.order(doubleValue, other.doubleValue)
    }

    private static func order<Value: Comparable>(_ a: Value, _ b: Value) -> ComparisonResult {
        a < b ? .orderedAscending : (b < a ? .orderedDescending : .orderedSame)
    }
}

/// The running sum of `@sum` and `@avg`: exact while every value is an integer (or a `Decimal`), a `Double` once a
/// floating-point value joins. An integer sum that overflows `Int` goes on as a `Decimal`.
struct NumericSum {
    private var total = NumericValue.integer(0)

    /// Adds `value`; `false` (and nothing added) if it is not a number.
    mutating func add(_ value: Any) -> Bool {
        guard let number = NumericValue(value) else { return false }
        switch (total, number) {
        case (.integer(let a), .integer(let b)):
            let (sum, overflow) = a.addingReportingOverflow(b)
            total = overflow ? .decimal(Decimal(a) + Decimal(b)) : .integer(sum)
        case (.double, _), (_, .double):
            total = .double(total.doubleValue + number.doubleValue)
        default:
            total = .decimal((total.decimalValue ?? 0) + (number.decimalValue ?? 0))
        }
        return true
    }

    /// The sum, as Foundation's collection operators answer: an `NSNumber` (an `NSDecimalNumber` for a decimal sum).
    var number: NSNumber {
        switch total {
        case .integer(let integer): return NSNumber(value: integer)
        case .double(let double): return NSNumber(value: double)
        case .decimal(let decimal): return NSDecimalNumber(decimal: decimal)
        }
    }

    /// The sum divided by `count` (greater than 0): a `Double` in an `NSNumber`, or an `NSDecimalNumber` for a
    /// decimal sum.
    func average(over count: Int) -> NSNumber {
        switch total {
        case .decimal(let decimal): return NSDecimalNumber(decimal: decimal / Decimal(count))
        default: return NSNumber(value: total.doubleValue / Double(count))
        }
    }
}
