import Foundation
import GuardCore

/// One lane of a campaign: runs the rounds handed to it one at a time, in this process or through a
/// ``ChildRoundHost`` of its own, and writes each round's seed file before the round runs. A campaign has one lane
/// per job; lanes share nothing but the settings, and a lane's rounds do not depend on which rounds it ran before.
final class RoundLane {
    private let settings: Campaign.Settings
    private let host: ChildRoundHost?
    private let encoder = JSONEncoder()

    init(settings: Campaign.Settings) {
        self.settings = settings
        host = settings.isolation.childProcessSettings.map {
            ChildRoundHost(settings: $0, roundsPerProcess: $0.roundsPerProcess(for: settings.runner))
        }
    }

    /// Runs `plan`; stops early (``RoundOutcome/Result/interrupted``) when `control` is cancelled.
    func run(_ plan: RoundPlan, control: JobControl) -> RoundOutcome {
        let start = MonotonicClock.now
        let file = plan.seedFile()
        let encoded = try? encoder.encode(file)
        var unfinished: UnfinishedSeedFile?
        var writeError: String?
        if plan.kind == .round, settings.writesSeedFileBeforeEachRound {
            do {
                guard let encoded else { throw CocoaError(.coderInvalidValue) }
                unfinished = try UnfinishedSeedFile(file, encoded: encoded, into: settings.outputDirectory)
            } catch {
                writeError = "could not write the seed file of a round before running it into \(settings.outputDirectory): "
                    + error.localizedDescription
            }
        }
        let result: RoundOutcome.Result
        if control.isCancelled {
            result = .interrupted
        } else if let host {
            control.onCancel(host.interrupter)
            result = runIsolated(plan, file: file, encoded: encoded, on: host)
            control.clearHandler()
        } else {
            result = runInProcess(plan)
        }
        return RoundOutcome(
            result: result, seconds: Double(MonotonicClock.now - start) / 1e9, unfinished: unfinished,
            writeError: writeError)
    }

    /// Ends the lane's child processes; what they cost (`nil` in process).
    func finish() -> IsolationStatistics? {
        host?.finish()
        return host?.statistics
    }

    /// The target the plan runs against.
    private func targetName(_ plan: RoundPlan) -> String {
        if case .comparison(let target) = plan.kind { return target }
        return plan.target
    }

    /// Runs the round here.
    private func runInProcess(_ plan: RoundPlan) -> RoundOutcome.Result {
        let diagnostics = CountingSink(keepsEvents: false)
        let name = targetName(plan)
        guard let target = settings.makeTarget(name, diagnostics) else {
            return .harnessError("the campaign's target factory no longer makes target \"\(name)\"")
        }
        let result = plan.runner.makeRunner().runAndEvaluate(plan.scenario, against: target)
        var verdict = result.verdict
        verdict.preventedMisuses = diagnostics.counts
        let wanted = !verdict.passed && plan.wish.wants(verdict.signature)
        return .executed(
            ExecutedRound(verdict: verdict, seedFile: wanted ? SeedFile(result: result, toolVersion: ToolVersion.current) : nil))
    }

    /// Runs the round in a child process.
    private func runIsolated(_ plan: RoundPlan, file: SeedFile, encoded: Data?, on host: ChildRoundHost) -> RoundOutcome.Result {
        let comparisonTarget: String? = if case .comparison(let target) = plan.kind { target } else { nil }
        let request: [UInt8]
        do {
            guard let encoded else { throw CocoaError(.coderInvalidValue) }
            request = try RoundRequest.encoded(
                file: encoded, target: comparisonTarget, stallTimeout: host.settings.stallTimeout, seedFile: plan.wish)
        } catch {
            return .harnessError("the round's seed file could not be encoded: \(error)")
        }
        switch host.run(encoded: request, operations: plan.operationCount) {
        case .answered(let answer):
            guard let verdict = answer.verdict else {
                return .harnessError("the child process could not run the round: \(answer.error ?? "no reason given")")
            }
            return .executed(ExecutedRound(verdict: verdict, seedFile: answer.seedFile))
        case .ended(let verdict, let log):
            let wanted = plan.wish.wants(verdict.signature)
            return .executed(
                ExecutedRound(
                    verdict: verdict, seedFile: wanted ? file.finished(with: verdict, scenario: plan.scenario) : nil,
                    log: log))
        case .failed(let error):
            return .harnessError(error.description)
        case .interrupted:
            return .interrupted
        }
    }
}
