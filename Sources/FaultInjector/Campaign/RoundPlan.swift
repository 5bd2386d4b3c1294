import Foundation

/// A round of a campaign as the campaign plans it, before any lane runs it: everything that decides its verdict
/// (seed, configuration, runner), fixed when it is planned, so the round is the same whichever lane runs it and
/// whenever. Its operations are drawn by whoever needs them (a round in a child process never draws them here).
struct RoundPlan: Sendable {
    /// What the plan is for.
    enum Kind: Sendable, Equatable {
        /// A round of the campaign.
        case round
        /// Round 0's scenario against another target, outside the campaign's totals
        /// (``Campaign/Settings/comparisonTarget``).
        case comparison(target: String)
    }

    let kind: Kind
    /// The round's index (the comparison's: -1).
    let index: Int
    /// The round's own seed.
    let seed: UInt64
    /// Its configuration (cut to fit the operation budget for the last round).
    let configuration: ScenarioConfiguration
    /// Operations every round performs (a scenario written by hand), or `nil`: drawn from the seed.
    let operations: [[Operation]]?
    /// The runner, with the expected step count PCT uses in this round.
    let runner: RunnerChoice
    /// The campaign's target (the seed file's).
    let target: String
    /// Whether a failing round's seed file must come back from its lane (see ``RoundRequest/SeedFileWish``).
    let wish: RoundRequest.SeedFileWish

    /// The id a lane knows the comparison run by.
    static let comparisonIndex = -1

    /// How many operations the round draws.
    var operationCount: Int {
        operations?.reduce(0) { $0 + $1.count } ?? configuration.workers * configuration.operationsPerWorker
    }

    /// The scenario, its operations drawn (or the fixed ones).
    var scenario: Scenario {
        if let operations { return Scenario(configuration: configuration, seed: seed, operations: operations) }
        return Scenario(configuration: configuration, seed: seed)
    }

    /// The round's seed file as written before it runs (failure ``SeedFile/unfinishedSignature``).
    func seedFile() -> SeedFile {
        var file = SeedFile(
            roundAboutToRun: seed, configuration: configuration, operationCount: operationCount, target: target,
            runner: runner, toolVersion: ToolVersion.current)
        // Operations the seed does not regenerate are written out.
        if let operations { file.operations = operations.map { $0.map(\.description) } }
        return file
    }
}

/// A round a lane ran: its verdict, its seed file if it failed and the campaign may write it, and for a round whose
/// process died, that process's standard error.
struct ExecutedRound: Sendable {
    let verdict: Verdict
    /// The failing round's seed file (`nil` when it passed, or when the plan's wish did not ask for it).
    let seedFile: SeedFile?
    /// The standard error of the round's process, if it died.
    var log: String?

    /// Whether the round's process died (crashed, trapped, or was killed for not answering).
    var processDied: Bool { log != nil }
}

/// What a lane hands back for a plan.
struct RoundOutcome: Sendable {
    enum Result: Sendable {
        /// The round ran and was judged.
        case executed(ExecutedRound)
        /// The round could not be run at all (the campaign stops): why.
        case harnessError(String)
        /// The round was stopped before it finished (the campaign no longer wanted it).
        case interrupted
    }

    let result: Result
    /// Seconds from the lane taking the plan to its outcome (isolation included).
    let seconds: Double
    /// The seed file written before the round ran, removed once the campaign has recorded the round.
    let unfinished: UnfinishedSeedFile?
    /// Why the seed file could not be written before the round ran.
    let writeError: String?
}
