import Foundation

/// One run of a campaign: the calling thread plans rounds (``RoundPlanner``), hands them to
/// ``Campaign/Settings/jobs`` lanes (``RoundLane``, through ``JobLanes``), and records their outcomes in round order
/// (``CampaignLedger``). When the ledger finds where the campaign stops, rounds after that one that are still running
/// are stopped (their processes killed) and never recorded.
struct CampaignRun {
    let settings: Campaign.Settings

    func run(progress: (Campaign.Progress) -> Void) -> CampaignSummary {
        let outputDirectoryExisted = FileManager.default.fileExists(atPath: settings.outputDirectory)
        defer { if !outputDirectoryExisted { removeIfEmpty(settings.outputDirectory) } }
        let start = MonotonicClock.now
        var ledger = CampaignLedger(settings: settings, start: start)
        var planner = RoundPlanner(settings: settings, start: start)
        let statistics = StatisticsTally()
        let lanes = JobLanes<RoundLane, RoundPlan, RoundOutcome>(
            count: settings.jobs, makeLane: { [settings] _ in RoundLane(settings: settings) },
            perform: { lane, plan, control in lane.run(plan, control: control) },
            closeLane: { lane in statistics.add(lane.finish()) })
        var running: Set<Int> = []
        var comparison = settings.comparisonTarget.map { planner.comparison(against: $0) }
        if settings.jobs > 1, let plan = comparison {
            // Beside the first rounds, so it adds no time of its own.
            lanes.submit(plan, id: plan.index)
            running.insert(plan.index)
            comparison = nil
        }
        while true {
            var next = RoundPlanner.Next.wait
            while lanes.idleLanes > 0 {
                next = planner.next(ledger)
                guard case .start(let plan) = next else { break }
                lanes.submit(plan, id: plan.index)
                running.insert(plan.index)
            }
            if running.isEmpty {
                guard let plan = comparison, comparisonWanted(ledger.summary) else { break }
                lanes.submit(plan, id: plan.index)
                running.insert(plan.index)
                comparison = nil
            }
            let (id, outcome) = lanes.next()
            running.remove(id)
            if id == RoundPlan.comparisonIndex {
                ledger.receiveComparison(outcome)
                continue
            }
            if ledger.receive(outcome, ofRound: id, progress: progress), let stop = ledger.stopRound {
                for other in running where other > stop || (other == RoundPlan.comparisonIndex && ledger.summary.harnessError != nil) {
                    lanes.cancel(id: other)
                }
            }
        }
        lanes.close()
        if let total = statistics.total, settings.isolation.childProcessSettings != nil { ledger.add(total) }
        ledger.finish()
        return ledger.summary
    }

    /// Whether the comparison still runs after the rounds: not when they could not be run, nor after a round in this
    /// process left blocked workers behind.
    private func comparisonWanted(_ summary: CampaignSummary) -> Bool {
        summary.harnessError == nil && !(summary.deadlocked && settings.isolation.childProcessSettings == nil)
    }

    /// Removes `directory` if it holds nothing (the campaign created it for seed files of rounds that all passed).
    private func removeIfEmpty(_ directory: String) {
        guard let contents = try? FileManager.default.contentsOfDirectory(atPath: directory), contents.isEmpty else { return }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// What the lanes' child processes cost, added up as each lane closes.
private final class StatisticsTally: @unchecked Sendable {
    private let lock = NSLock()
    private var sum: IsolationStatistics?

    func add(_ statistics: IsolationStatistics?) {
        guard let statistics else { return }
        lock.lock()
        sum = (sum ?? IsolationStatistics()).adding(statistics)
        lock.unlock()
    }

    var total: IsolationStatistics? {
        lock.lock()
        defer { lock.unlock() }
        return sum
    }
}
