/// The choices of one explored execution: it follows the request's prefix, checking that every decision and step
/// repeats what the explorer saw before, then chooses by the default rule (the worker that reached the decision if it
/// can run and is awake, else the lowest-numbered awake one), keeping the sleep set as steps run. When every worker
/// that could run is asleep, the execution is sleep-set blocked: it only repeats explored classes, and goes on
/// without counting.
final class ExplorationSession: @unchecked Sendable {
    let request: ExecutionRequest
    let recorder: StepRecorder
    private var touches = TouchIndex()
    private var sleep = SleepSet()
    private var processedSteps = 0
    /// The first place the execution did not repeat its prefix, or another reason it proves nothing.
    private(set) var problem: String?
    private(set) var sleepBlockedAt: Int?

    init(request: ExecutionRequest, recorder: StepRecorder) {
        self.request = request
        self.recorder = recorder
    }

    /// The index of the branch step (the prefix's last), or -1 when there is none.
    private var branch: Int { request.prefix.count - 1 }

    /// Takes in the steps that ended since the last call: checks prefix steps, updates the touches and the sleep set.
    private func catchUp(through ended: Int) {
        let steps = recorder.execution.steps
        while processedSteps < ended, processedSteps < steps.count {
            let index = processedSteps
            let step = steps[index]
            if index < branch, problem == nil, let expected = request.checks[index].signature {
                let signature = StepSignature.of(
                    step, at: index, touches: touches, execution: recorder.execution)
                if signature != expected {
                    problem = "the re-execution did not repeat its prefix at step \(index): worker \(step.worker) "
                        + "touched other objects than when that step first ran"
                }
            }
            touches.add(step, at: index)
            if index == branch { sleep = request.sleep }
            if index >= branch, request.usesSleepSets {
                sleep = sleep.after(step, touches: touches, execution: recorder.execution)
            }
            processedSteps += 1
        }
    }

    /// The worker to run at `decision`.
    func choose(_ decision: SchedulingDecision) -> Int {
        catchUp(through: decision.step)
        let step = decision.step
        if step < request.prefix.count, problem == nil {
            let check = request.checks[step]
            let code = UInt8(ascii: decision.point.code.unicodeScalars.first!)
            let runnable = decision.runnable.reduce(UInt64(0)) { $0 | (1 << UInt64($1)) }
            let wanted = request.prefix[step]
            if code != check.point || (decision.current ?? -1) != check.current || runnable != check.runnable {
                problem =
                    "the re-execution did not repeat its prefix at step \(step): it reached \(decision.point.name)"
                    + " with workers \(Self.list(runnable)) able to run, where the first execution reached "
                    + "\(SchedulePoint(code: Character(Unicode.Scalar(check.point))).map(\.name) ?? "?") with workers "
                    + "\(Self.list(check.runnable))"
            } else if decision.runnable.contains(wanted) {
                return wanted
            }
        }
        return defaultChoice(decision)
    }

    private func defaultChoice(_ decision: SchedulingDecision) -> Int {
        let awake = decision.runnable.filter { !sleep.contains($0) }
        if awake.isEmpty {
            if sleepBlockedAt == nil, decision.step >= request.prefix.count { sleepBlockedAt = decision.step }
            if let current = decision.current, decision.runnable.contains(current) { return current }
            return decision.runnable[0]
        }
        if let current = decision.current, awake.contains(current) { return current }
        return awake[0]
    }

    /// The run ended: the last step is in.
    func runEnded(steps: Int) {
        catchUp(through: steps)
        if problem == nil, steps < request.prefix.count {
            problem = "the re-execution ended after \(steps) steps, before the end of its prefix of "
                + "\(request.prefix.count)"
        }
    }

    private static func list(_ mask: UInt64) -> String {
        (0..<64).filter { mask & (1 << UInt64($0)) != 0 }.map(String.init).joined(separator: ", ")
    }
}

/// The scheduling strategy of an explored execution: its session's choices.
struct ExplorationStrategy: SchedulingStrategy {
    let session: ExplorationSession

    mutating func choose(_ decision: SchedulingDecision) -> Int {
        session.choose(decision)
    }

    mutating func runEnded(steps: Int) {
        session.runEnded(steps: steps)
    }
}
