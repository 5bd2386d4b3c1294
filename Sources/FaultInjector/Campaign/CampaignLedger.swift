import Foundation

/// Where a campaign records its rounds: it takes their outcomes in whatever order lanes finish them and records
/// them in round order (summary, failures, seed files, the progress callback), as a campaign running one round at
/// a time would. It also decides where the campaign stops: at a failure with ``Campaign/Settings/stopAtFirstFailure``,
/// at a round that could not be run, at a round in this process whose workers had to be abandoned. Rounds after
/// that one are not recorded, even if they ran.
struct CampaignLedger {
    let settings: Campaign.Settings
    /// The campaign so far.
    private(set) var summary: CampaignSummary
    /// Rounds recorded: the next one to record.
    private(set) var recorded = 0
    /// The round the campaign stops at (recorded, unless it could not be run), once known.
    private(set) var stopRound: Int?
    private var waiting: [Int: RoundOutcome] = [:]
    private var signaturesSeen: Set<String> = []
    /// The longest count of choice steps in rounds 0...i, per recorded round i (0: none).
    private var longestChoiceSteps: [Int] = []
    private let start: UInt64

    init(settings: Campaign.Settings, start: UInt64) {
        self.settings = settings
        self.start = start
        summary = CampaignSummary(
            target: settings.target, seed: settings.seed, scenario: settings.scenario, runner: settings.runner)
        summary.jobs = settings.jobs
        summary.scenario = settings.roundConfiguration(operationsDone: 0)
    }

    /// What a lane must send back for a failing round: every failing round's seed file while the campaign may
    /// still write more, then only those of new failures. Asked when a round is planned, it asks for at least what
    /// recording the round will need (the rounds recorded meanwhile only narrow what gets written).
    var seedFileWish: RoundRequest.SeedFileWish {
        summary.seedFiles.count < settings.maximumSeedFiles ? .always : .unlessSignatureIn(signaturesSeen.sorted())
    }

    /// The expected step count PCT learned for round `round`: the longest count of choice steps in rounds
    /// `0 ..< round - lag`; `.notYet` while those are not all recorded.
    func learnedSteps(forRound round: Int, lag: Int) -> LearnedSteps {
        let known = round - lag
        guard known > 0 else { return .none }
        guard known <= recorded else { return .notYet }
        let longest = longestChoiceSteps[known - 1]
        return longest > 0 ? .steps(longest) : .none
    }

    /// See ``learnedSteps(forRound:lag:)``.
    enum LearnedSteps: Equatable {
        case none, notYet, steps(Int)
    }

    /// Takes round `round`'s outcome and records every round that is now next in order. Returns whether the stop
    /// round moved (the caller then stops the rounds after it).
    mutating func receive(
        _ outcome: RoundOutcome, ofRound round: Int, progress: (Campaign.Progress) -> Void
    ) -> Bool {
        if let writeError = outcome.writeError, !summary.writeErrors.contains(writeError) {
            summary.writeErrors.append(writeError)
        }
        let previousStop = stopRound
        if stops(at: outcome), round < (stopRound ?? .max) { stopRound = round }
        waiting[round] = outcome
        for (index, outcome) in waiting where index > (stopRound ?? .max) {
            outcome.unfinished?.remove()
            waiting[index] = nil
        }
        while recorded <= (stopRound ?? .max), let next = waiting.removeValue(forKey: recorded) {
            record(next, progress: progress)
        }
        return stopRound != previousStop
    }

    /// Whether `outcome` ends the campaign at its round.
    private func stops(at outcome: RoundOutcome) -> Bool {
        switch outcome.result {
        case .harnessError, .interrupted:
            return true
        case .executed(let executed):
            // In this process, abandoned workers stay blocked (and may hold locks later rounds need).
            if executed.verdict.abandoned, settings.isolation.childProcessSettings == nil { return true }
            return !executed.verdict.passed && settings.stopAtFirstFailure
        }
    }

    /// Records the next round.
    private mutating func record(_ outcome: RoundOutcome, progress: (Campaign.Progress) -> Void) {
        let round = recorded
        recorded += 1
        defer { outcome.unfinished?.remove() }
        guard case .executed(let executed) = outcome.result else {
            if case .harnessError(let message) = outcome.result { summary.harnessError = message }
            if case .interrupted = outcome.result { summary.harnessError = "round \(round) was stopped before it finished" }
            return
        }
        let verdict = executed.verdict
        longestChoiceSteps.append(max(longestChoiceSteps.last ?? 0, verdict.choiceSteps ?? 0))
        summary.add(verdict)
        let seed = StreamSeeds.seed(run: settings.seed, purpose: .rounds, index: round)
        let record = CampaignSummary.RoundRecord(
            round: round, seed: seed, seconds: outcome.seconds, signature: verdict.signature)
        summary.roundRecords.append(record)
        var failure: CampaignSummary.FailedRound?
        if !verdict.passed {
            var failed = CampaignSummary.FailedRound(round: round, seed: seed, signature: verdict.signature)
            failed.messages = verdict.violations.map { "\($0.kind.rawValue): \($0.message)" }
            failed.seconds = outcome.seconds
            summary.failures.append(failed)
            keepSeedFile(of: executed, isNewFailure: signaturesSeen.insert(verdict.signature).inserted)
            failure = summary.failures.last
        }
        summary.seconds = Double(MonotonicClock.now - start) / 1e9
        progress(
            Campaign.Progress(
                rounds: recorded, operations: summary.operations, deliveries: summary.deliveries,
                violations: summary.verdict.totalViolations, elapsed: Double(MonotonicClock.now - start) / 1e9,
                round: record, failure: failure, summary: summary))
    }

    /// Records the comparison run's outcome.
    mutating func receiveComparison(_ outcome: RoundOutcome) {
        switch outcome.result {
        case .executed(let executed): summary.comparison = executed.verdict
        case .harnessError(let message): summary.comparisonError = message
        case .interrupted: summary.comparisonError = "the comparison run was stopped before it finished"
        }
    }

    /// Adds what the lanes' child processes cost.
    mutating func add(_ statistics: IsolationStatistics) {
        summary.isolation = (summary.isolation ?? IsolationStatistics()).adding(statistics)
    }

    /// Ends the summary: the campaign's wall-clock time.
    mutating func finish() {
        summary.seconds = Double(MonotonicClock.now - start) / 1e9
    }

    /// Writes the seed file of a failing round, unless its failure is a repeat and the campaign already wrote as
    /// many as it may; a round whose process died gets its log beside it.
    private mutating func keepSeedFile(of round: ExecutedRound, isNewFailure: Bool) {
        guard isNewFailure || summary.seedFiles.count < settings.maximumSeedFiles, let file = round.seedFile else {
            summary.unwrittenSeedFiles += 1
            return
        }
        let last = summary.failures.count - 1
        do {
            let path = try SeedFileStore.write(file, into: settings.outputDirectory)
            summary.seedFiles.append(path)
            summary.failures[last].seedFile = path
            if let log = round.log, !log.isEmpty {
                let logPath = String(path.dropLast(".json".count)) + ".log"
                try AtomicFile.write(Data(log.utf8), to: logPath, replacing: true)
                summary.failures[last].log = logPath
            }
        } catch {
            let reason = error.localizedDescription
            if summary.failures[last].seedFile == nil {
                summary.failures[last].seedFileProblem = "writing it failed: \(reason)"
            }
            summary.writeErrors.append("could not write a seed file into \(settings.outputDirectory): \(reason)")
        }
    }
}
