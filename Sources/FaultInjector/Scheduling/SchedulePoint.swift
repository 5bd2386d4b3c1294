import GuardCore

/// A schedule point: a place where a controlled run decides which worker runs next, the place the running worker
/// reached.
///
/// The set is the harness's own points (``SchedulePoint/start``, ``SchedulePoint/operation``,
/// ``SchedulePoint/finish``), the lock boundaries GuardCore and ``ScheduledLock`` announce (``SchedulePoint/acquire``,
/// ``SchedulePoint/wait``, ``SchedulePoint/release``), and GuardCore's named schedule points
/// (``SchedulePoint/guardCore(index:)``): every place a controlled run may switch workers.
///
/// Each point has a one-character code, so a recorded schedule can store the point of every step in one string
/// (`"sooaarh..."`) and a replay can tell the moment it stops reaching the same places.
public enum SchedulePoint: Hashable, Sendable {
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
    /// A worker reached one of GuardCore's named schedule points (its position among them; see ``name``).
    case guardCore(index: UInt8)

    /// The schedule point of GuardCore's named point `point`.
    package init(_ point: NamedSchedulePoint) {
        self = .guardCore(index: point.rawValue)
    }

    /// The one-character code: lowercase for the harness and lock boundaries (`s o a w r f`), an uppercase letter
    /// per GuardCore point, fixed by the point's name so seed files keep their meaning when GuardCore adds points
    /// (a point this table does not know yet gets a digit, which is only stable within one build).
    public var code: Character {
        switch self {
        case .start: return "s"
        case .operation: return "o"
        case .acquire: return "a"
        case .wait: return "w"
        case .release: return "r"
        case .finish: return "f"
        case .guardCore(let index): return Int(index) < Self.guardCoreCodes.count ? Self.guardCoreCodes[Int(index)] : "?"
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
            guard let index = Self.guardCoreCodes.firstIndex(of: code) else { return nil }
            self = .guardCore(index: UInt8(index))
        }
    }

    /// The letter of each GuardCore point by name. Add one when GuardCore adds a point.
    private static let lettersByName: [String: Character] = [
        "runtimeBeforeCallback": "C", "runtimeBeforeStore": "S", "runtimeBeforeInsert": "I", "runtimeRewireRead": "W",
        "guardBeforeRegister": "R", "guardAfterRegister": "P", "guardBeforeUnregister": "U", "guardBeforeHandler": "H",
    ]

    /// The code of each GuardCore point, by raw value.
    private static let guardCoreCodes: [Character] = NamedSchedulePoint.allCases.map { point in
        lettersByName["\(point)"] ?? Character(Unicode.Scalar(UInt8(ascii: "0") &+ point.rawValue % 10))
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
            return NamedSchedulePoint(rawValue: index).map { "\($0)" } ?? "GuardCore point \(index)"
        }
    }
}

/// The former name of ``SchedulePoint``.
@available(*, deprecated, renamed: "SchedulePoint")
public typealias StepPoint = SchedulePoint
