/// The keys every stress object has: three stored integers and one key that depends on two of them.
public enum StressKey: Int, CaseIterable, Codable, Sendable {
    case k0, k1, k2
    /// `k0 + k1`, a dependent key (``StressObject`` declares it in `keyPathsForValuesAffectingValue`).
    case sum

    /// The string key path.
    public var name: String {
        switch self {
        case .k0: return "k0"
        case .k1: return "k1"
        case .k2: return "k2"
        case .sum: return "sum"
        }
    }

    /// Keys a mutation can set directly (every key but the dependent one).
    public static let stored: [StressKey] = [.k0, .k1, .k2]

    /// The keys whose observers hear about a change of `self`: itself, and `sum` for `k0` and `k1`.
    public var notifiedKeys: [StressKey] {
        switch self {
        case .k0, .k1: return [self, .sum]
        case .k2: return [.k2]
        case .sum: return []
        }
    }

    /// The key named `name`, if any.
    public init?(name: String) {
        guard let key = StressKey.allCases.first(where: { $0.name == name }) else { return nil }
        self = key
    }
}
