import Foundation

extension Campaign {
    /// What to run and for how long.
    public struct Settings: Sendable {
        /// The campaign seed; round `r` uses its own seed derived from it.
        public var seed: UInt64 = 1
        /// The scenario of every round (its seed is replaced per round).
        public var scenario = ScenarioConfiguration()
        /// Stop after rounds that draw this many operations in all (`nil`: no limit); the last round is cut to fit
        /// (see ``configuration(operationsDone:)``). Rounds are counted by the operations they draw, not by what
        /// they performed (operations that observation handlers perform come on top, and a round whose process
        /// died counts in full), so which rounds run never depends on timing or on ``jobs``.
        public var operationBudget: Int? = nil
        /// Stop starting rounds after this many seconds (rounds running then finish).
        public var duration: Double = 50
        /// Rounds run at once, each in a child process of its own (1 to ``Campaign/maximumJobs``; the default, 1,
        /// runs them one after another). More than one needs ``isolation`` set to child processes: rounds in one
        /// process would share the runtime's process-wide state. Whatever the number, the campaign runs the same
        /// rounds with the same seeds, judges, reports and writes seed files for them in round order, and each
        /// round's verdict is what it would have been alone (see ``Campaign``).
        public var jobs = 1
        /// Also run round 0's scenario once against this target (made by ``makeTarget``), outside the campaign's
        /// totals: ``CampaignSummary/comparison`` (guard-stress compares the guard with `raw`, the runtime it wraps).
        /// With more than one job it runs beside the first rounds, else after the last one.
        public var comparisonTarget: String?
        /// The system under test's name: one ``makeTarget`` knows (the built-in ``TargetCatalog`` by default). It is
        /// the name the campaign's seed files keep, and the name a child process's ``RoundServer`` makes it by.
        public var target = "guard"
        /// Makes the target by name for rounds that run in this process (and checks the name before the campaign).
        /// The built-in catalog by default; for a system under test of your own, a factory that knows its name.
        /// With child processes, serve the same factory there: ``RoundServer/serve(makeTarget:)``.
        public var makeTarget: TargetFactory = TargetCatalog.make
        /// Which runner runs each round.
        public var runner = RunnerChoice.chaos
        /// Where seed files of failing rounds go.
        public var outputDirectory = "stress-seeds"
        /// Stop at the first failing round.
        public var stopAtFirstFailure = false
        /// Write seed files for at most this many failing rounds (a long campaign against a broken target would
        /// otherwise fill the disk with near-identical files). A failure with a signature not seen before in the
        /// campaign is always written; repeats beyond the limit are only counted.
        public var maximumSeedFiles = 10
        /// Where rounds run: in this process, or each in a child process. The default, ``RoundIsolation/automatic``:
        /// child processes running this program's ``RoundIsolation/roundServer`` when it set one (`guard-stress`
        /// does), else this process.
        public var isolation = RoundIsolation.automatic
        /// Whether each round's seed file is written before the round runs (and removed after it passed).
        public var writesSeedFileBeforeEachRound = true
        /// The same operations for every round (a scenario written by hand, `guard-stress run --scenario`), each
        /// round with its own seed, so its own schedule and pauses; ``scenario`` must fit them. `nil` (the default):
        /// each round draws its own operations from its seed.
        public var operations: [[Operation]]?

        /// The defaults: 64 queues × 1,000 operations per round, 50 seconds, the guard, rounds where
        /// ``RoundIsolation/automatic`` says.
        public init() {}

        /// The scenario of round `round`, after `operationsDone` operations: its own seed, and cut to fit when the
        /// operation budget is nearly used up (see ``configuration(operationsDone:)``).
        public func scenario(forRound round: Int, operationsDone: Int = 0) -> Scenario {
            let seed = StreamSeeds.seed(run: seed, purpose: .rounds, index: round)
            if let operations { return Scenario(configuration: scenario, seed: seed, operations: operations) }
            return Scenario(configuration: configuration(operationsDone: operationsDone), seed: seed)
        }

        /// The configuration of a round after `operationsDone` operations: ``scenario`` for the same operations
        /// every round, else ``configuration(operationsDone:)``.
        func roundConfiguration(operationsDone: Int) -> ScenarioConfiguration {
            operations == nil ? configuration(operationsDone: operationsDone) : scenario
        }

        /// The configuration of the round after `operationsDone` operations (the first round's is the largest).
        /// When the operation budget has less than a whole round left, the round is cut to fit: fewer operations
        /// per worker (spread evenly, rounded up) and, if that is still more than is left, fewer workers, so a
        /// round draws at most `operations per worker - 1` operations more than the budget has left (`--ops 1`
        /// runs one operation on one worker, `--ops 100` on 64 workers runs 50 workers × 2).
        public func configuration(operationsDone: Int = 0) -> ScenarioConfiguration {
            var configuration = scenario
            if let operationBudget {
                let remaining = max(1, operationBudget - operationsDone)
                let workers = max(1, configuration.workers)
                let perWorker = max(1, min(configuration.operationsPerWorker, (remaining + workers - 1) / workers))
                configuration.operationsPerWorker = perWorker
                configuration.workers = min(workers, (remaining + perWorker - 1) / perWorker)
            }
            return configuration
        }
    }
}
