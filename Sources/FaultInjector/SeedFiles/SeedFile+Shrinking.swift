extension SeedFile {
    /// How a file written by `guard-stress shrink` came about, for the person reading it.
    public struct Shrinking: Codable, Sendable, Equatable {
        /// The name of the file it was shrunk from.
        public var from: String
        /// The original's workers.
        public var originalWorkers: Int
        /// The original's operations.
        public var originalOperations: Int
        /// The original's schedule steps (controlled files).
        public var originalSteps: Int?
        /// Candidates the shrinker tried.
        public var candidates: Int
        /// Chaos files: the most runs each candidate got (it counted as failing at its first run with the
        /// signature); absent for controlled files, whose candidates fail or pass in one run.
        public var runsPerCandidate: Int?
        /// Controlled files: whether the file's strategy and seed regenerate the recorded schedule. `false` when the
        /// shrinker found the schedule by guiding the scheduler: then only the recorded schedule replays the failure
        /// (which `replay` follows whenever it replays against the file's own target).
        public var scheduleFromStrategy: Bool?
        /// Whether replaying the shrunk file confirmed its failure (every verification replay showed the signature,
        /// exactly for a controlled file): `false` for a file `shrink` kept although it did not (written under a name
        /// that says so, `NAME.unverified-shrunk.json`); absent when no verification was asked for.
        public var verified: Bool?
        /// Whether the failure needs its workers to overlap (a race the shrinker kept a race: every serial order of the
        /// workers passes), or `false` for a sequential misuse; absent in files shrunk before it was checked.
        public var needsConcurrency: Bool?

        /// Creates the note.
        public init(
            from: String, originalWorkers: Int, originalOperations: Int, originalSteps: Int?, candidates: Int,
            runsPerCandidate: Int?, scheduleFromStrategy: Bool?
        ) {
            self.from = from
            self.originalWorkers = originalWorkers
            self.originalOperations = originalOperations
            self.originalSteps = originalSteps
            self.candidates = candidates
            self.runsPerCandidate = runsPerCandidate
            self.scheduleFromStrategy = scheduleFromStrategy
        }
    }
}
