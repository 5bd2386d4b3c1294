import GuardCore

/// The object every stress operation observes and mutates: three stored integer keys and `sum = k0 + k1`, a
/// dependent key, so changes fan out to dependent registrations too.
public final class StressObject: KVOObject, @unchecked Sendable {
    /// Stored key `k0`; `sum` depends on it.
    @Observed public var k0 = 0
    /// Stored key `k1`; `sum` depends on it.
    @Observed public var k1 = 0
    /// Stored key `k2`, independent of the others.
    @Observed public var k2 = 0
    /// Unique within a process; names the object in histories and reports.
    public let id: Int

    /// Creates an object with all keys at zero.
    public init(id: Int) {
        self.id = id
    }

    /// `k0 + k1`.
    public var sum: Int { k0 &+ k1 }

    /// The current value of `key`.
    public func value(of key: StressKey) -> Int {
        switch key {
        case .k0: return k0
        case .k1: return k1
        case .k2: return k2
        case .sum: return sum
        }
    }

    /// Sets a stored key (through its `@Observed` setter, so observers are notified).
    public func set(_ key: StressKey, to value: Int) {
        switch key {
        case .k0: k0 = value
        case .k1: k1 = value
        case .k2: k2 = value
        case .sum: preconditionFailure("sum is derived and cannot be set")
        }
    }

    override public class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
        key == "sum" ? ["k0", "k1"] : super.keyPathsForValuesAffectingValue(forKey: key)
    }

    override public func value(forKey key: String) -> Any? {
        key == "sum" ? sum : super.value(forKey: key)
    }
}
