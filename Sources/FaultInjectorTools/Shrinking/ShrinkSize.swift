import FaultInjector

/// How big a failing run is, in the units the shrinker reduces.
public struct ShrinkSize: Sendable, Hashable, CustomStringConvertible {
    /// Workers.
    public var workers: Int
    /// Operations in all (handler actions not counted).
    public var operations: Int
    /// Distinct controller slots the operations name.
    public var controllers: Int
    /// Distinct object slots the operations name.
    public var objects: Int
    /// Distinct key paths the operations name.
    public var keys: Int
    /// Schedule steps (controlled runs).
    public var steps: Int?
    /// Preemptions: steps where the running worker could have gone on but another was chosen (controlled runs).
    public var preemptions: Int?

    /// The size of `result`'s scenario and schedule.
    public init(_ result: RunResult) {
        self.init(scenario: result.scenario, schedule: result.recording.controlled?.schedule)
    }

    /// The size of a candidate run.
    init(_ run: CandidateRun) {
        self.init(scenario: run.scenario, schedule: run.schedule)
    }

    /// The size of `scenario` run with `schedule` (controlled runs; `nil` when none is known).
    public init(scenario: Scenario, schedule: Schedule?) {
        workers = scenario.operations.count
        operations = scenario.operationCount
        controllers = scenario.usedSlots("c").count
        objects = scenario.usedSlots("o").count
        keys = scenario.usedKeys.count
        if let schedule {
            steps = schedule.count
            preemptions = SwitchPlan(schedule).preemptionOrder.count
        }
    }

    /// `2 workers, 3 operations, 1 controller, 1 object, 1 key path, 41 steps (1 preemption)`.
    public var description: String {
        func counted(_ count: Int, _ noun: String, _ plural: String? = nil) -> String {
            "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
        }
        var parts = [
            counted(workers, "worker"), counted(operations, "operation"), counted(controllers, "controller"),
            counted(objects, "object"), counted(keys, "key path"),
        ]
        if let steps {
            parts.append(counted(steps, "step") + (preemptions.map { " (\(counted($0, "preemption")))" } ?? ""))
        }
        return parts.joined(separator: ", ")
    }
}
