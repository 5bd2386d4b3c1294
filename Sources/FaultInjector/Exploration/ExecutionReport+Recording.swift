extension ExecutionReport {
    /// The report of an explored run: its steps, its class, and the oracle's verdict on its history put in canonical
    /// form (``CanonicalTimes``).
    init(recording: RunRecording) {
        guard let explored = recording.explored else { preconditionFailure("the run was not explored") }
        let recorder = explored.recorder
        var execution = recorder.execution
        execution.sleepBlockedAt = explored.session.sleepBlockedAt
        let workers = recording.scenario.configuration.workers
        let order = HappensBefore(execution.steps, objects: execution.objectWords.count, workers: workers)
            .canonicalOrder()
        let canonicalWorkers = order.map { execution.steps[$0].worker }
        var canonical = recording
        canonical.history = CanonicalTimes(
            start: recorder.ticksAtStart, ends: recorder.ticksAtStepEnd, order: order
        ).apply(to: recording.history)
        let verdict = Oracle(for: canonical).evaluate(canonical)
        self.init(
            execution: execution, problem: Self.problem(of: recording, explored: explored),
            classHash: Self.hash(canonicalWorkers), canonicalDigest: canonical.history.digest,
            signature: verdict.signature, examples: verdict.violations.prefix(3).map { "\($0.kind.rawValue): \($0.message)" },
            canonicalWorkers: canonicalWorkers,
            scheduleWorkers: recording.controlled?.schedule.workersText ?? "",
            schedulePoints: recording.controlled?.schedule.pointsText ?? "")
    }

    /// Why the run proves nothing, if it does not.
    private static func problem(of recording: RunRecording, explored: ExploredRun) -> String? {
        if let problem = explored.session.problem { return problem }
        if recording.abandoned, !explored.deadlockAmongLocks {
            return "a run was abandoned: \(recording.facts.deadlock ?? "the workers did not finish")"
        }
        if let exceeded = recording.facts.stepLimitExceeded { return exceeded }
        return nil
    }

    /// Two 64-bit FNV-1a hashes (different offsets) of a canonical order.
    static func hash(_ workers: [Int]) -> [UInt64] {
        [UInt64(0xCBF2_9CE4_8422_2325), 0x8422_2325_CBF2_9CE4].map { offset in
            var hash: UInt64 = offset
            for worker in workers {
                hash = (hash ^ UInt64(worker & 0xFF)) &* 0x0000_0100_0000_01B3
            }
            return hash ^ UInt64(workers.count) &* 0x9E37_79B9_7F4A_7C15
        }
    }
}
