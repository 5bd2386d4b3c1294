import GuardCore

/// Replays a seed file: runs its scenario (the written operations, or the ones its seed regenerates) against its
/// target several times and reports how often the failure came back.
///
/// The chaos runner replays operations, not interleavings, so a race reproduces with a rate; misuse that follows
/// from the operations alone (removing what was never added) reproduces every time.
public struct Replayer: Sendable {
    /// The outcome of a replay.
    public struct Outcome: Sendable {
        /// Runs made.
        public let runs: Int
        /// Runs whose oracle was violated.
        public let violatedRuns: Int
        /// Runs whose failure signature equals the seed file's.
        public let sameSignatureRuns: Int
        /// The signature of each run (empty when the oracle held).
        public let signatures: [String]
        /// The last violated run's report, for details.
        public let lastViolation: OracleReport?

        /// Whether the oracle was violated at least once.
        public var reproduced: Bool { violatedRuns > 0 }
    }

    /// The seed file being replayed.
    public let file: SeedFile
    /// The system the operations run against.
    public let target: any SystemUnderTest

    /// A replay of `file` against `target` (by default the target the file names).
    public init(file: SeedFile, target: (any SystemUnderTest)? = nil) throws(SeedFileError) {
        self.file = file
        guard let resolved = target ?? TargetCatalog.make(file.target, diagnostics: CountingSink(keepsEvents: false)) else {
            throw .unknownTarget(file.target)
        }
        self.target = resolved
    }

    /// Runs the scenario `runs` times.
    public func replay(runs: Int) throws(SeedFileError) -> Outcome {
        let scenario = try file.makeScenario()
        var violated = 0
        var same = 0
        var signatures: [String] = []
        var last: OracleReport?
        for _ in 0..<max(1, runs) {
            let result = ChaosRunner().run(scenario, against: target)
            signatures.append(result.report.signature)
            if !result.passed {
                violated += 1
                last = result.report
            }
            if result.report.signature == file.failure.signature, !result.passed { same += 1 }
            if result.abandoned { break }
        }
        return Outcome(runs: signatures.count, violatedRuns: violated, sameSignatureRuns: same, signatures: signatures, lastViolation: last)
    }
}
