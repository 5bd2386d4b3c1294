import FaultInjector
import Foundation
import GuardCore

/// Renders campaign summaries and replay outcomes for people.
enum SummaryPrinter {
    static func campaign(_ summary: CampaignSummary, cores: Int) -> String {
        let scenario = summary.scenario
        var lines = ["KVOGuard stress campaign: target \(summary.target), seed \(summary.seed)"]
        if let controlled = summary.runner.controlledSettings {
            lines += [
                "  controlled runner, strategy \(controlled.strategy), step limit \(Format.count(controlled.stepLimit)): "
                    + "\(scenario.workers) workers (one running at a time), "
                    + "\(Format.count(scenario.operationsPerWorker)) operations per worker per schedule, "
                    + "\(scenario.objects) objects, \(scenario.controllers) controllers",
                "  schedules         \(Format.count(summary.rounds)) (\(Format.rate(summary.roundsPerSecond)) schedules/s, oracle included)",
                "  schedule steps    \(Format.count(summary.steps)) (\(Format.rate(summary.stepsPerSecond)) steps/s); "
                    + "the schedules themselves took \(Format.seconds(summary.workerSeconds)) of \(Format.seconds(summary.seconds))",
            ]
            if summary.stepLimitRounds > 0 {
                lines.append("  step limit hit in \(Format.count(summary.stepLimitRounds)) schedules")
            }
        } else {
            lines += [
                "  \(scenario.workers) queues on \(cores) cores, \(Format.count(scenario.operationsPerWorker)) operations per queue per round, "
                    + "\(scenario.objects) objects, \(scenario.controllers) controllers, faults \(scenario.faults.isEnabled ? "on" : "off")",
                "  rounds            \(Format.count(summary.rounds))",
            ]
        }
        if summary.jobs > 1 {
            lines.append("  jobs              \(summary.jobs) rounds at once, each in its own process")
        }
        lines += [
            "  operations        \(Format.count(summary.operations)) in \(Format.seconds(summary.seconds)) "
                + "(\(Format.rate(summary.throughput)) ops/s, oracle included)",
            "  deliveries        \(Format.count(summary.deliveries))",
        ]
        if summary.runner == .chaos { lines.append("  faults injected   \(Format.count(summary.faultsInjected))") }
        if !summary.preventedMisuses.isEmpty {
            lines.append("  prevented misuse (absorbed by the guard as logged no-ops):")
            for (kind, count) in summary.preventedMisuses.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                lines.append("    " + pad(label(kind), 34) + Format.count(count))
            }
        }
        lines.append(contentsOf: oracle(summary.verdict))
        if summary.seedFiles.isEmpty {
            lines.append("  seed files        none")
        } else {
            lines.append("  seed files        \(summary.seedFiles.count):")
            lines.append(contentsOf: summary.seedFiles.prefix(10).map { "    \($0)" })
            if summary.seedFiles.count > 10 { lines.append("    … and \(summary.seedFiles.count - 10) more") }
        }
        if summary.unwrittenSeedFiles > 0 {
            lines.append("    \(Format.count(summary.unwrittenSeedFiles)) more failing rounds with a failure already written were not written (see --max-seed-files)")
        }
        lines.append(contentsOf: summary.writeErrors.map { "  ERROR: \($0)" })
        if let isolation = summary.isolation { lines.append(contentsOf: self.isolation(isolation)) }
        if summary.deadlocked {
            lines.append(
                summary.isolation == nil
                    ? "  a round DEADLOCKED; its workers were abandoned and the campaign stopped"
                    : "  \(Format.count(summary.deadlockedRounds)) round\(summary.deadlockedRounds == 1 ? "" : "s") DEADLOCKED; "
                        + "their processes were killed and the campaign went on")
        }
        if let harnessError = summary.harnessError { lines.append("  ERROR: rounds could not be run: \(harnessError)") }
        return lines.joined(separator: "\n")
    }

    /// The campaign's verdict for its result line: `PASS (the oracle held in every round)` or `FAIL (...)`.
    static func campaignResult(_ summary: CampaignSummary) -> String {
        if summary.passed { return "PASS (the oracle held in every round)" }
        if summary.failures.isEmpty, let harnessError = summary.harnessError {
            return "ERROR (rounds could not be run: \(harnessError))"
        }
        return "FAIL (\(summary.failures.count) of \(summary.rounds) rounds violated the oracle: "
            + Set(summary.failures.map(\.signature)).sorted().joined(separator: "; ") + ")"
    }

    /// `guard-stress: round 4 (seed 123): crash(SIGSEGV): ...; seed file stress-seeds/seed-....json`
    static func failingRound(_ failure: CampaignSummary.FailedRound) -> String {
        let detail = failure.messages.first.map { ": " + ($0.count > 240 ? String($0.prefix(240)) + "…" : $0) } ?? ""
        let file = failure.seedFile.map { "; seed file \($0)" }
            ?? "; no seed file (\(failure.seedFileProblem ?? "--max-seed-files limit reached"))"
        return "guard-stress: round \(failure.round) (seed \(failure.seed)) FAILED \(failure.signature)\(detail)\(file)"
    }

    /// What running rounds in child processes cost.
    static func isolation(_ statistics: IsolationStatistics) -> [String] {
        let started = "  isolation         \(Format.count(statistics.processesStarted)) child processes "
            + "(start-up \(milliseconds(statistics.meanStartupSeconds)) each, overlapping the round before)"
        var lines = [
            statistics.rounds == 0
                ? started + "; no round finished in one"
                : started + ", \(milliseconds(statistics.overheadPerRound)) per round on top of the round's "
                    + milliseconds(statistics.meanRoundSeconds)
        ]
        if statistics.processesLost > 0 {
            lines.append("    \(Format.count(statistics.processesLost)) processes crashed, trapped or hung and were replaced")
        }
        return lines
    }

    static func oracle(_ verdict: Verdict) -> [String] {
        var lines = ["  oracle            \(Format.count(verdict.totalChecks)) checks, \(Format.count(verdict.totalViolations)) violations"]
        for (check, count) in verdict.checks.sorted(by: { $0.key < $1.key }) {
            lines.append("    " + pad(check, 52) + Format.count(count))
        }
        if verdict.inconclusiveKeys > 0 {
            lines.append("    linearizability search budget ran out for \(verdict.inconclusiveKeys) keys (neither confirmed nor refuted)")
        }
        if !verdict.crashSignals.isEmpty {
            lines.append("  processes of rounds ended by:")
            for (signal, count) in verdict.crashSignals.sorted(by: { $0.key < $1.key }) {
                lines.append("    " + pad(signal, 34) + Format.count(count))
            }
        }
        if !verdict.runtimeMisuses.isEmpty {
            lines.append("  runtime misuse (each one a crash under Foundation):")
            for (kind, count) in verdict.runtimeMisuses.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                lines.append("    " + pad(kind.rawValue, 34) + Format.count(count))
            }
        }
        if !verdict.violationCounts.isEmpty {
            lines.append("  violations by kind:")
            for (kind, count) in verdict.violationCounts.sorted(by: { $0.key < $1.key }) {
                lines.append("    " + pad(kind.rawValue, 34) + Format.count(count))
            }
            lines.append("  first violations:")
            lines.append(contentsOf: verdict.violations.prefix(8).map { "    - \($0.kind.rawValue): \($0.message)" })
        }
        return lines
    }

    static func rawComparison(_ verdict: Verdict, runner: RunnerChoice) -> String {
        var lines = [
            "What the raw runtime (no guard) would have done with round 1's operations "
                + "(\(Format.count(verdict.operations)) operations, same seed"
                + (runner.controlledSettings.map { ", \($0.strategy) schedule" } ?? "") + "):"
        ]
        if verdict.runtimeMisuses.isEmpty {
            lines.append("  no misuse reached the runtime")
        } else {
            let total = verdict.runtimeMisuses.values.reduce(0, +)
            lines.append("  \(Format.count(total)) misuses reached the runtime; under Foundation the first would have crashed the app:")
            for (kind, count) in verdict.runtimeMisuses.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                lines.append("    " + pad(kind.rawValue, 34) + Format.count(count))
            }
        }
        let others = verdict.violationCounts.filter { $0.key != .runtimeMisuse }
        if !others.isEmpty {
            lines.append("  other oracle violations: " + others.sorted(by: { $0.key < $1.key })
                .map { "\($0.key.rawValue) \(Format.count($0.value))" }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    private static func label(_ kind: GuardDiagnostic.Kind) -> String {
        switch kind {
        case .duplicateObservation: return "duplicate observation"
        case .doubleRemoval: return "double removal"
        case .removalOfUnregistered: return "removal of unregistered"
        case .invalidArgument: return "invalid argument"
        case .observerDeallocated: return "notification to a gone observer"
        case .keyPathUnavailable: return "key path unavailable (reads as nil)"
        }
    }

    /// `12.3 ms`.
    static func milliseconds(_ seconds: Double) -> String {
        seconds >= 10 ? String(format: "%.0f s", seconds) : seconds >= 1 ? String(format: "%.2f s", seconds)
            : String(format: "%.1f ms", seconds * 1000)
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
