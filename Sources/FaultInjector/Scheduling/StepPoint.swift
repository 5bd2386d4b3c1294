import GuardCore

/// Why a controlled run came to a scheduling decision: the place the running worker reached.
///
/// Each point has a one-character code, so a recorded schedule can store the point of every step in one string
/// (`"sooaarh..."`) and a replay can tell the moment it stops reaching the same places.
public enum StepPoint: Hashable, Sendable {
    /// The run starts: every worker is ready and none has run.
    case start
    /// A worker is about to begin its next operation.
    case operation
    /// A worker is about to take a lock nobody holds.
    case acquire
    /// A worker is about to take a lock another worker holds: it blocks until the lock is released.
    case wait
    /// A worker released a lock.
    case release
    /// A worker finished its operations.
    case finish
    /// A worker reached one of GuardCore's named schedule points (its position among GuardCore's points; see
    /// ``name``).
    case guardCore(index: UInt8)

    /// The step point of GuardCore's schedule point `point`.
    package init(_ point: SchedulePoint) {
        self = .guardCore(index: point.rawValue)
    }

    /// The one-character code: lowercase for the harness and lock boundaries (`s o a w r f`), uppercase for
    /// GuardCore's named points (`A` for the first ``SchedulePoint`` case, `B` for the second, ...).
    public var code: Character {
        switch self {
        case .start: return "s"
        case .operation: return "o"
        case .acquire: return "a"
        case .wait: return "w"
        case .release: return "r"
        case .finish: return "f"
        case .guardCore(let index): return Character(Unicode.Scalar(UInt8(ascii: "A") &+ index))
        }
    }

    /// The point with code `code`; `nil` for a character that is no point's code.
    public init?(code: Character) {
        switch code {
        case "s": self = .start
        case "o": self = .operation
        case "a": self = .acquire
        case "w": self = .wait
        case "r": self = .release
        case "f": self = .finish
        default:
            guard let ascii = code.asciiValue, ascii >= UInt8(ascii: "A"),
                let point = SchedulePoint(rawValue: ascii - UInt8(ascii: "A"))
            else { return nil }
            self.init(point)
        }
    }

    /// A readable name: `start`, `operation`, `acquire`, ..., or the GuardCore point's name (`guardBeforeHandler`).
    public var name: String {
        switch self {
        case .start: return "start"
        case .operation: return "operation"
        case .acquire: return "acquire"
        case .wait: return "wait"
        case .release: return "release"
        case .finish: return "finish"
        case .guardCore(let index):
            return SchedulePoint(rawValue: index).map { "\($0)" } ?? "GuardCore point \(index)"
        }
    }
}
