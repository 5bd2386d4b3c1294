/// The string key paths a stress operation can observe on a ``StressObject``.
///
/// - `k0`, `k1`, `k2`: stored integers, notified automatically when set.
/// - `sum`: `k0 + k1`, a dependent key.
/// - `level`: an integer announced by hand (`willChangeValue` / `didChangeValue`).
/// - `items`: an ordered to-many array changed through the to-many helpers (insertions, removals, replacements with
///   indexes).
/// - `link`: the middle object of dotted key paths (another stress object, an object of another class without the
///   leaf key, or nil), announced by hand.
/// - `link.k0`: a dotted key path through the middle object.
/// - `linked`: a dependent key that depends on the dotted key path `link.k0` (it fires on the leaf too).
/// - `delegate` (weak) and `owner` (unowned): stored properties that are not key-value coding keys; observing them
///   is refused (the guard answers `.invalid`, the raw runtime reports `unknownKey`).
///
/// The raw values fix the order operations are drawn in: new keys are appended, so older configurations (which list
/// their keys) draw exactly what they drew before.
public enum StressKey: Int, CaseIterable, Sendable {
    case k0, k1, k2
    /// `k0 + k1`, a dependent key (``StressObject`` declares it in `keyPathsForValuesAffectingValue`).
    case sum
    /// Announced by hand.
    case level
    /// An ordered to-many property.
    case items
    /// The middle object of `link.k0`.
    case link
    /// The dotted key path `link.k0`.
    case linkK0
    /// Depends on the dotted key path `link.k0`.
    case linked
    /// A weak stored property (not a key).
    case delegate
    /// An unowned stored property (not a key).
    case owner

    /// The string key path.
    public var name: String {
        switch self {
        case .k0: return "k0"
        case .k1: return "k1"
        case .k2: return "k2"
        case .sum: return "sum"
        case .level: return "level"
        case .items: return "items"
        case .link: return "link"
        case .linkK0: return "link.k0"
        case .linked: return "linked"
        case .delegate: return "delegate"
        case .owner: return "owner"
        }
    }

    /// The key named `name`, if any.
    public init?(name: String) {
        guard let key = StressKey.allCases.first(where: { $0.name == name }) else { return nil }
        self = key
    }

    /// Keys a mutation sets directly (through their `@Observed` setters).
    public static let stored: [StressKey] = [.k0, .k1, .k2]

    /// The keys observe operations drew from before the widened keys existed; a configuration that names no keys
    /// (written by an older version) draws from these.
    public static let classic: [StressKey] = [.k0, .k1, .k2, .sum]

    /// Keys that cannot be observed at all: the guard answers `.invalid`, the raw runtime reports `unknownKey`.
    public var isRefused: Bool {
        self == .delegate || self == .owner
    }

    /// Keys whose value is read through the middle object (`link`): reading one needs that object's lock too, and
    /// its observers also hear about changes of `k0` on whatever object `link` names.
    public var readsThroughLink: Bool {
        self == .linkK0 || self == .linked
    }

    /// The keys of the *same* object whose observers hear about a change of `self`: itself, `sum` for `k0` and `k1`,
    /// and `link.k0` and `linked` for `link`. (A change of `k0` also reaches `link.k0` and `linked` of every object
    /// that links to this one; the oracle follows links separately.)
    public var notifiedKeys: [StressKey] {
        switch self {
        case .k0, .k1: return [self, .sum]
        case .k2, .level, .items: return [self]
        case .link: return [.link, .linkK0, .linked]
        case .sum, .linkK0, .linked, .delegate, .owner: return []
        }
    }

    /// The keys of the same object whose changes `self` hears about (the inverse of ``notifiedKeys``).
    public var notifyingKeys: [StressKey] {
        switch self {
        case .k0, .k1, .k2, .level, .items, .link: return [self]
        case .sum: return [.k0, .k1]
        case .linkK0, .linked: return [.link]
        case .delegate, .owner: return []
        }
    }

    /// This key's bit in a set of keys.
    var bit: UInt64 { 1 << UInt64(rawValue) }
}

extension StressKey: Codable {
    /// Reads a key by its name (`"link.k0"`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let key = StressKey(name: name) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(name) is not a stress key")
        }
        self = key
    }

    /// Writes the key's name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
