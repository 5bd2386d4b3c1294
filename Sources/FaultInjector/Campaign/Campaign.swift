import Foundation
import GuardCore

/// A stress campaign: rounds of fresh scenarios against one target until an operation budget or a time budget is
/// used up. Each round is run by the chosen runner, then judged by the ``Oracle``; every failing round is written
/// as a seed file.
///
/// Each round's seed file is written before the round runs (`seed-TARGET-SEED.running.json`, failure
/// `unfinished`), so even a crash of the whole process leaves the round to replay; it is removed when the round has
/// finished, and a failing round gets its seed file under the usual name.
///
/// Rounds run where ``Settings/isolation`` says, by default ``RoundIsolation/automatic``: child processes when this
/// program serves rounds (`guard-stress` does), else this process. In child processes, a crash, a trap or a
/// hang of the system under test is the verdict of its round (`crash(SIGSEGV)`, `trap`, `deadlock`), with its seed
/// file (and the process's standard error beside it, `.log`), and the campaign goes on in a fresh process.
///
/// With child processes, ``Settings/jobs`` rounds run at once, each in its own process, so a campaign keeps every
/// core busy: while one round's oracle judges it, the next rounds' workers run. The campaign is the same whatever
/// the number of jobs: round `r` has the same seed, configuration and runner settings (so a controlled round the
/// same schedule and verdict), the rounds are recorded, reported, passed to the progress callback and given their
/// seed files in round order, and a crash is its own round's verdict while the other rounds go on. It stops
/// starting rounds at ``Settings/duration`` (rounds running then finish). With ``Settings/stopAtFirstFailure`` it
/// stops at the first failing round in round order, as one job would: when a round fails no round starts, running
/// rounds after it are stopped and left out, and running rounds before it finish (one of them may fail first).
///
/// The target is named by ``Settings/target`` and made by ``Settings/makeTarget``: the built-in catalog's by default,
/// or a factory of your own that knows your own systems under test (and, with child processes, the same factory
/// served by the child program with ``RoundServer/serve(makeTarget:)``). A name the factory does not know is refused
/// when the campaign is created (``CampaignSettingsError``), never at run time.
///
/// With the controlled runner each round is one schedule; PCT's expected step count starts from an estimate and
/// follows the longest run seen so far (as shuttle's PCT does) among the rounds at least ``stepLearningLag`` rounds
/// earlier, so it does not depend on which rounds happen to have finished; each seed file records the value its
/// round used.
public struct Campaign: Sendable {
    /// Where a campaign stands, after each round.
    public struct Progress: Sendable {
        /// Rounds finished.
        public let rounds: Int
        /// Operations performed so far.
        public let operations: Int
        /// Notifications received so far.
        public let deliveries: Int
        /// Oracle violations so far.
        public let violations: Int
        /// Seconds since the campaign started.
        public let elapsed: Double
        /// The round that just finished.
        public let round: CampaignSummary.RoundRecord
        /// Its failure, if it failed.
        public let failure: CampaignSummary.FailedRound?
        /// The campaign so far (for a report of a campaign stopped before it finished).
        public let summary: CampaignSummary
    }

    /// The most rounds a campaign runs at once.
    public static let maximumJobs = 1_024

    /// How many rounds back PCT learns its expected step count from: round `r` uses the longest run among rounds
    /// `0 ..< r - stepLearningLag` (the first ones use an estimate from the scenario's size). A constant, so the
    /// value a round uses never depends on the number of jobs; a round waits for those rounds to be recorded.
    public static let stepLearningLag = 256

    /// What this campaign runs.
    public let settings: Settings

    /// Creates a campaign; throws if ``Settings/makeTarget`` cannot make ``Settings/target`` (or
    /// ``Settings/comparisonTarget``), or if ``Settings/jobs`` is out of range or more than one in this process.
    public init(settings: Settings) throws(CampaignSettingsError) {
        for name in [settings.target] + (settings.comparisonTarget.map { [$0] } ?? [])
        where settings.makeTarget(name, CountingSink(keepsEvents: false)) == nil {
            throw CampaignSettingsError(unknownTarget: name)
        }
        guard (1...Self.maximumJobs).contains(settings.jobs) else {
            throw CampaignSettingsError(description: "Campaign.Settings.jobs must be from 1 to \(Self.maximumJobs), not \(settings.jobs)")
        }
        guard settings.jobs == 1 || settings.isolation.childProcessSettings != nil else {
            throw CampaignSettingsError(
                description: "Campaign.Settings.jobs is \(settings.jobs), but rounds in this process run one at a time (they "
                    + "share the runtime's process-wide state): set isolation to child processes, or jobs to 1")
        }
        self.settings = settings
    }

    /// Runs the campaign, calling `progress` after every round, in round order, on the calling thread.
    public func run(progress: (Progress) -> Void = { _ in }) -> CampaignSummary {
        CampaignRun(settings: settings).run(progress: progress)
    }
}
