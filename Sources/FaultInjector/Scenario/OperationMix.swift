/// Relative weights of the operations a worker draws, one per ``OperationKind``. Zero switches an operation off.
///
/// Encoded as a JSON object keyed by kind name (`{"observe": 20, "observeInitial": 10, ...}`); a kind missing from
/// a file (one written before that kind existed) has weight 0.
public struct OperationMix: Hashable, Sendable {
    private var weightsByKind: [OperationKind: Int]

    /// The default mix: observe-heavy churn with mutations, every kind of removal, release, change and query.
    public init() {
        weightsByKind = [
            .observe: 20, .observeInitial: 10, .unobserve: 14, .doubleUnobserve: 3, .unobserveObject: 3,
            .unobserveAll: 2, .mutate: 40, .releaseObserver: 1, .releaseController: 2, .releaseObject: 2,
            .observeForwarding: 4, .unobserveContext: 3, .observeTyped: 3, .unobserveTyped: 2, .link: 5, .announce: 4,
            .changeItems: 5, .countRegistrations: 2, .isObserving: 2, .observedKeyPaths: 2,
        ]
    }

    /// A mix with every weight zero, to build from.
    public static var none: OperationMix {
        var mix = OperationMix()
        mix.weightsByKind = [:]
        return mix
    }

    /// The mix of the scenarios before the widened operations: only the ten classic kinds, with their old weights.
    public static var classic: OperationMix {
        var mix = OperationMix()
        for kind in OperationKind.allCases where !OperationKind.classic.contains(kind) { mix[kind] = 0 }
        return mix
    }

    /// The weight of `kind`. A weight of 0 is stored as no weight, so two mixes that draw alike are equal whether a
    /// kind is absent (the default mix has no weight for kinds added later, such as `setGauge`) or named with 0 (a
    /// file that lists every kind).
    public subscript(kind: OperationKind) -> Int {
        get { weightsByKind[kind, default: 0] }
        set { weightsByKind[kind] = newValue == 0 ? nil : newValue }
    }

    /// The largest weight a mix (or a handler action mix) may give one kind, from `--mix` or from a file.
    public static let weightLimit = 1_000_000

    /// The weights in drawing order (``OperationKind``'s declaration order).
    var weights: [Int] {
        OperationKind.allCases.map { self[$0] }
    }

    /// Parses `observe=3,unobserve=2,...`: the listed weights, every other kind 0. Throws a readable message for an
    /// unknown name, a malformed entry, a weight that is not a whole number from 0 to 1,000,000, or a repeated name.
    public init(parsing text: String) throws(MixError) {
        self = .none
        var seen: Set<OperationKind> = []
        for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = entry.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw MixError("'\(entry)' is not NAME=WEIGHT")
            }
            let name = String(parts[0])
            guard let kind = OperationKind(rawValue: name) else {
                throw MixError(
                    "unknown operation '\(name)'; the operations are "
                        + OperationKind.allCases.map(\.rawValue).joined(separator: ", "))
            }
            guard let weight = Int(parts[1]), (0...Self.weightLimit).contains(weight) else {
                throw MixError(
                    "the weight of \(name) must be a whole number from 0 to \(Self.weightLimit), not '\(parts[1])'")
            }
            guard seen.insert(kind).inserted else { throw MixError("\(name) is given twice") }
            self[kind] = weight
        }
        guard weights.reduce(0, +) > 0 else { throw MixError("at least one weight must be positive") }
    }

    /// `observe=20,observeInitial=10,...`, every kind with a positive weight in drawing order.
    public var text: String {
        OperationKind.allCases.filter { self[$0] > 0 }.map { "\($0.rawValue)=\(self[$0])" }.joined(separator: ",")
    }
}

/// Why a `--mix` text was refused.
public struct MixError: Error, CustomStringConvertible, Sendable {
    /// The reason, as a sentence fragment.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension OperationMix: Codable {
    private struct KindKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Reads one weight per kind; a kind the file does not name has weight 0, and a name that is no kind is an error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: KindKey.self)
        self = .none
        for key in container.allKeys {
            guard let kind = OperationKind(rawValue: key.stringValue) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container, debugDescription: "\(key.stringValue) is not an operation kind")
            }
            self[kind] = try Self.decodeWeight(forKey: key, in: container)
        }
    }

    /// A weight from a file, held to the bound `--mix` applies (0 to ``weightLimit``), so no sum of weights overflows;
    /// `absent` (if given) when the file lacks the key.
    static func decodeWeight<Key: CodingKey>(
        forKey key: Key, in container: KeyedDecodingContainer<Key>, absent: Int? = nil
    ) throws -> Int {
        let weight: Int
        if let absent {
            weight = try container.decodeIfPresent(Int.self, forKey: key) ?? absent
        } else {
            weight = try container.decode(Int.self, forKey: key)
        }
        guard (0...weightLimit).contains(weight) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "a weight must be from 0 to \(weightLimit), not \(weight)")
        }
        return weight
    }

    /// Writes every kind's weight.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: KindKey.self)
        for kind in OperationKind.allCases {
            try container.encode(self[kind], forKey: KindKey(stringValue: kind.rawValue))
        }
    }
}

/// Relative weights of the actions a handler performs on its first notification.
public struct HandlerActionMix: Codable, Hashable, Sendable {
    /// Do nothing.
    public var none = 70
    /// Unobserve the notified key path.
    public var unobserveSelf = 12
    /// Unobserve everything of the notified controller.
    public var unobserveAll = 3
    /// Release the notified controller.
    public var releaseController = 2
    /// Mutate an object key.
    public var mutate = 8
    /// Observe another key path.
    public var observe = 5
    /// Take an object out of its slot and keep it in the handler (a handler that owns the last
    /// reference to another observed object).
    public var adopt = 2

    /// The default mix.
    public init() {}

    /// Handlers that do nothing (only ``none``, at its default weight).
    public static var nothing: HandlerActionMix {
        var mix = HandlerActionMix()
        mix.unobserveSelf = 0
        mix.unobserveAll = 0
        mix.releaseController = 0
        mix.mutate = 0
        mix.observe = 0
        mix.adopt = 0
        return mix
    }

    /// Reads the weights (each from 0 to ``OperationMix/weightLimit``); `adopt`, which older files lack, is 0 when
    /// absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        none = try OperationMix.decodeWeight(forKey: .none, in: container)
        unobserveSelf = try OperationMix.decodeWeight(forKey: .unobserveSelf, in: container)
        unobserveAll = try OperationMix.decodeWeight(forKey: .unobserveAll, in: container)
        releaseController = try OperationMix.decodeWeight(forKey: .releaseController, in: container)
        mutate = try OperationMix.decodeWeight(forKey: .mutate, in: container)
        observe = try OperationMix.decodeWeight(forKey: .observe, in: container)
        adopt = try OperationMix.decodeWeight(forKey: .adopt, in: container, absent: 0)
    }

    /// The weights in drawing order (new actions appended, so older configurations draw what they drew before).
    var weights: [Int] { [none, unobserveSelf, unobserveAll, releaseController, mutate, observe, adopt] }
}

/// How often workers pause, and how, to shake up interleavings.
public struct FaultProfile: Codable, Hashable, Sendable {
    /// Chance of `sched_yield` at an operation boundary or schedule point.
    public var yieldProbability = 0.04
    /// Chance of a short busy spin.
    public var spinProbability = 0.02
    /// Chance of a short sleep.
    public var sleepProbability = 0.002
    /// Longest spin, in loop iterations.
    public var maxSpinIterations = 2_000
    /// Longest sleep, in microseconds.
    public var maxSleepMicroseconds = 50
    /// Also pause at the schedule points inside GuardCore, not only between operations.
    public var insideOperations = true

    /// The default profile.
    public init() {}

    /// No injected faults at all.
    public static let none: FaultProfile = {
        var profile = FaultProfile()
        profile.yieldProbability = 0
        profile.spinProbability = 0
        profile.sleepProbability = 0
        profile.insideOperations = false
        return profile
    }()

    /// Whether any pause can happen at all.
    public var isEnabled: Bool {
        yieldProbability > 0 || spinProbability > 0 || sleepProbability > 0
    }
}
