import Foundation
import GuardCore

/// How the harness writes the values of notifications and keys as integers: integers as they are, arrays of
/// integers as a fingerprint, objects as their id, nil as ``nilValue``.
public enum StressValue {
    /// A nil value (distinct from an absent one, which a notification record marks separately).
    public static let nilValue = Int.min
    /// The value an observe record carries for an `.initial` + `.new` read that raced changes of its key (see
    /// ``ScenarioConfiguration/racesInitialValue``): not known in advance, so the oracle judges the value delivered
    /// against the changes around it.
    public static let racedRead = Int.min + 1

    /// The fingerprint of an array of integers (order matters); values are unique per mutation, so two different
    /// arrays the harness builds practically never share one.
    public static func fingerprint(_ elements: [Int]) -> Int {
        var hash = 0x1F3D_5B79
        for element in elements { hash = hash &* 31 &+ element }
        return hash &* 31 &+ elements.count
    }

    /// `value` as an integer: an `Int`, an `[Int]` fingerprint, a stress object's or stranger's id, or ``nilValue``
    /// for nil and anything else.
    public static func encode(_ value: Any?) -> Int {
        guard let value else { return nilValue }
        if let number = value as? Int { return number }
        if let elements = value as? [Int] { return fingerprint(elements) }
        if let object = value as? StressObject { return object.id }
        if let stranger = value as? StressStranger { return stranger.id }
        return nilValue
    }

    /// The positions in `indexes` (all below 64) as a bit mask; 0 for nil.
    public static func mask(_ indexes: IndexSet?) -> UInt64 {
        guard let indexes else { return 0 }
        return indexes.reduce(0) { mask, index in index < 64 && index >= 0 ? mask | (1 << UInt64(index)) : mask }
    }
}
