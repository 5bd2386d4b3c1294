/// The strategies a controlled run can be asked for by name (seed files, the command line).
public enum StrategyChoice: Sendable, Hashable, CustomStringConvertible {
    /// ``RandomStrategy``.
    case random
    /// ``PCTStrategy`` with this depth.
    case pct(depth: Int)

    /// Every strategy name.
    public static let names = ["random", "pct"]
    /// The depths PCT accepts.
    public static let depths = 1...100

    /// `random` or `pct`.
    public var name: String {
        switch self {
        case .random: return "random"
        case .pct: return "pct"
        }
    }

    /// PCT's depth; `nil` for random.
    public var depth: Int? {
        switch self {
        case .random: return nil
        case .pct(let depth): return depth
        }
    }

    /// `random`, `pct depth 3`.
    public var description: String {
        depth.map { "\(name) depth \($0)" } ?? name
    }

    /// The strategy named `name`, with `depth` for PCT (required there, refused for random); the error is one
    /// sentence.
    public init(name: String, depth: Int?) throws(StrategyChoiceError) {
        switch name {
        case "random":
            guard depth == nil else { throw StrategyChoiceError("strategy random takes no depth (only pct does)") }
            self = .random
        case "pct":
            guard let depth else { throw StrategyChoiceError("strategy pct needs a depth") }
            guard Self.depths.contains(depth) else {
                throw StrategyChoiceError(
                    "the pct depth must be between \(Self.depths.lowerBound) and \(Self.depths.upperBound) (is \(depth))")
            }
            self = .pct(depth: depth)
        default:
            throw StrategyChoiceError(
                "there is no strategy \"\(name)\" (known: \(Self.names.joined(separator: ", ")))")
        }
    }

    /// The strategy for a run of `workers` workers, seeded from the run seed through ``StreamSeeds`` (purpose
    /// `schedule`). PCT spreads its change points over `expectedSteps` counted steps.
    public func makeStrategy(runSeed: UInt64, workers: Int, expectedSteps: Int) -> any SchedulingStrategy {
        let seed = StreamSeeds.seed(run: runSeed, purpose: .schedule, index: 0)
        switch self {
        case .random: return RandomStrategy(seed: seed)
        case .pct(let depth): return PCTStrategy(depth: depth, workers: workers, expectedSteps: expectedSteps, seed: seed)
        }
    }
}

/// Why a strategy name or depth was refused: one sentence.
public struct StrategyChoiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
