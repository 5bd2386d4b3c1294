/// Which runner executes a scenario, and how: what seed files and the command line name.
public enum RunnerChoice: Sendable, Hashable {
    /// ``ChaosRunner``: real threads at once, injected pauses; replays operations, not interleavings.
    case chaos
    /// ``ControlledRunner`` with these settings: one worker at a time; replays exactly.
    case controlled(ControlledRunner.Settings)

    /// Every runner name.
    public static let names = ["chaos", "controlled"]

    /// `chaos` or `controlled`.
    public var name: String {
        switch self {
        case .chaos: return "chaos"
        case .controlled: return "controlled"
        }
    }

    /// The controlled settings, or `nil` for chaos.
    public var controlledSettings: ControlledRunner.Settings? {
        if case .controlled(let settings) = self { return settings }
        return nil
    }

    /// A runner of this kind; a controlled one follows `schedule` if given (chaos runners ignore it).
    public func makeRunner(replaying schedule: Schedule? = nil) -> any ScenarioRunner {
        switch self {
        case .chaos: return ChaosRunner()
        case .controlled(let settings): return ControlledRunner(settings: settings, replaying: schedule)
        }
    }
}
