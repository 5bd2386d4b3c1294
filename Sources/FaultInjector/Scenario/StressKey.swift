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
/// - `delegate` (weak): a stored property read through the runtime's weak load, observable and never changed.
/// - `owner` (`unowned(unsafe)`): a stored property that is not a key-value coding key; observing it is refused (the
///   guard answers `.invalid`, the raw runtime reports `unknownKey`).
/// - `gauge`: an integer kept behind a lock and announced by hand, so it may be read while another thread sets it;
///   its sets take only their own key's lock, never the object's, so they overlap links of objects linking here.
/// - `link.gauge`: a dotted key path through the middle object to its `gauge`.
/// - `peer.k0`: a dotted key path through `peer`, which is always nil: its value is always nil and nothing announces
///   it. The typed key paths `\.peer!.k0` and `\.peer?.k0` are named by it (naming them never evaluates them).
/// - `caf\u{E9}` and `cafe\u{301}`: two stored integers whose names are canonically equivalent spellings of one word
///   (Swift's `==` calls them equal), and two stored integers whose long names share their first 70 bytes: keys are
///   told apart by their UTF-8 bytes (``spelledApart``), so each is a key of its own.
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
    /// A weak stored property: observable, never changed (its value, the anchor, encodes as nil).
    case delegate
    /// An `unowned(unsafe)` stored property (not a key).
    case owner
    /// Kept behind a lock and announced by hand; set without the object's mutation lock.
    case gauge
    /// The dotted key path `link.gauge`.
    case linkGauge
    /// The key path `peer.k0` through the always-nil `peer`.
    case peerK0
    /// `caf\u{E9}` (é as one scalar), a stored integer.
    case composedCafe
    /// `cafe\u{301}` (e and a combining accent), a stored integer: canonically equivalent to ``composedCafe``'s name,
    /// and another key.
    case decomposedCafe
    /// A stored integer with a long name that shares its first 70 bytes with ``longKeyTwo``'s.
    case longKeyOne
    /// A stored integer with a long name that shares its first 70 bytes with ``longKeyOne``'s.
    case longKeyTwo

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
        case .gauge: return "gauge"
        case .linkGauge: return "link.gauge"
        case .peerK0: return "peer.k0"
        case .composedCafe: return "caf\u{E9}"
        case .decomposedCafe: return "cafe\u{301}"
        case .longKeyOne: return Self.longKeyPrefix + "One"
        case .longKeyTwo: return Self.longKeyPrefix + "Two"
        }
    }

    /// What the names of ``longKeyOne`` and ``longKeyTwo`` begin with (70 bytes).
    static let longKeyPrefix = "aLongKeyNameThatSharesItsFirstSeventyBytesWithAnotherKeyOfTheSameObject"

    /// The name as a message lists it: beside a name with scalars beyond ASCII, its scalars spelled out
    /// (`café (caf\u{E9})`, `café (cafe\u{301})`), so two spellings that look alike read as the two keys they are.
    public var listedName: String {
        guard !name.unicodeScalars.allSatisfy(\.isASCII) else { return name }
        let spelled = name.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{" + String($0.value, radix: 16, uppercase: true) + "}" }
        return "\(name) (\(spelled.joined()))"
    }

    /// The key named `name`, if any: the one whose name has the same UTF-8 bytes (`caf\u{E9}` and `cafe\u{301}`
    /// are two keys, although Swift's `==` calls the strings equal).
    public init?(name: String) {
        guard let key = StressKey.allCases.first(where: { $0.name.utf8.elementsEqual(name.utf8) }) else { return nil }
        self = key
    }

    /// The keys told apart only by their UTF-8 bytes or late in their names: two canonically equivalent spellings of
    /// one word and two long names with a common beginning, all stored integers set by mutations. New configurations
    /// draw them; a system that compared keys as Swift strings, or by a prefix, would mix them up.
    public static let spelledApart: [StressKey] = [.composedCafe, .decomposedCafe, .longKeyOne, .longKeyTwo]

    /// Whether the key is one of ``spelledApart``.
    public var isSpelledApart: Bool {
        Self.spelledApart.contains(self)
    }

    /// The stored integers a mutation sets through their `@Observed` setters: ``stored`` and ``spelledApart``.
    public static let storedIntegers: [StressKey] = stored + spelledApart

    /// Whether the key is one of ``storedIntegers``.
    public var isStoredInteger: Bool {
        Self.storedIntegers.contains(self)
    }

    /// Keys a mutation sets directly (through their `@Observed` setters).
    public static let stored: [StressKey] = [.k0, .k1, .k2]

    /// Keys a mutate operation of a worker's list sets: the stored keys, `gauge` and the keys spelled apart (handler
    /// actions set only the stored integers).
    public static let mutated: [StressKey] = stored + [.gauge] + spelledApart

    /// The keys observe operations draw from by default: every key up to `owner` (the keys that existed before
    /// `gauge`), so the default configuration and every profile that names no keys draw exactly what they drew before
    /// `gauge` and `link.gauge` were added. Profiles that want those name them.
    public static let widened: [StressKey] = Array(allCases.prefix(through: StressKey.owner.rawValue))

    /// The keys observe operations drew from before the widened keys existed; a configuration that names no keys
    /// (written by an older version) draws from these.
    public static let classic: [StressKey] = [.k0, .k1, .k2, .sum]

    /// Keys that cannot be observed at all: the guard answers `.invalid`, the raw runtime reports `unknownKey`.
    public var isRefused: Bool {
        self == .owner
    }

    /// Keys whose value is read through the middle object (`link`): reading one needs that object's lock too, and
    /// its observers also hear about changes of ``leaf`` on whatever object `link` names.
    public var readsThroughLink: Bool {
        leaf != nil
    }

    /// For a key read through the middle object, the key of the middle object it reads: `k0` for `link.k0` and
    /// `linked`, `gauge` for `link.gauge`; `nil` for every other key.
    public var leaf: StressKey? {
        switch self {
        case .linkK0, .linked: return .k0
        case .linkGauge: return .gauge
        default: return nil
        }
    }

    /// The dotted key paths (`link.k0`, `link.gauge`): linking an object without the leaf key breaks their chain (the
    /// guard refuses or reports it as `keyPathUnavailable`).
    public var isDotted: Bool {
        self == .linkK0 || self == .linkGauge
    }

    /// Keys whose sets take only the key's own lock, not the object's mutation lock (``StressObject/gauge``): a read
    /// of such a key, or through the link of such a key, may race its sets, so an `.initial` value of one is judged
    /// against the sets rather than read in advance.
    public var isSetWithoutObjectLock: Bool {
        self == .gauge || leaf == .gauge
    }

    /// The keys of the *same* object whose observers hear about a change of `self`: itself, `sum` for `k0` and `k1`,
    /// and `link.k0`, `linked` and `link.gauge` for `link`. (A change of `k0` or `gauge` also reaches the keys read
    /// through the link of every object that links to this one; the oracle follows links separately.)
    public var notifiedKeys: [StressKey] {
        switch self {
        case .k0, .k1: return [self, .sum]
        case .k2, .level, .items, .gauge, .composedCafe, .decomposedCafe, .longKeyOne, .longKeyTwo: return [self]
        case .link: return [.link, .linkK0, .linked, .linkGauge]
        case .sum, .linkK0, .linked, .linkGauge, .delegate, .owner, .peerK0: return []
        }
    }

    /// The keys of the same object whose changes `self` hears about (the inverse of ``notifiedKeys``).
    public var notifyingKeys: [StressKey] {
        switch self {
        case .k0, .k1, .k2, .level, .items, .link, .gauge, .composedCafe, .decomposedCafe, .longKeyOne, .longKeyTwo:
            return [self]
        case .sum: return [.k0, .k1]
        case .linkK0, .linked, .linkGauge: return [.link]
        case .delegate, .owner, .peerK0: return []
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
