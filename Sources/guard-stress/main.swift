import FaultInjector
import GuardCore
import Foundation

var configuration = ScenarioConfiguration()
configuration.workers = Int(CommandLine.arguments.dropFirst().first ?? "64") ?? 64
configuration.operationsPerWorker = Int(CommandLine.arguments.dropFirst(2).first ?? "1000") ?? 1000
let seed = UInt64(CommandLine.arguments.dropFirst(3).first ?? "1") ?? 1
let scenario = Scenario(configuration: configuration, seed: seed)
let sink = CountingSink(keepsEvents: false)
for target in [GuardTarget(diagnostics: sink) as any SystemUnderTest, RawRuntimeTarget()] {
    let t0 = Date()
    let result = ChaosRunner().run(scenario, against: target)
    print(target.name, "ops", result.operationsPerformed, "deliveries", result.deliveries, "faults", result.faultsInjected, "run s", result.seconds, "total s", Date().timeIntervalSince(t0))
    print("  checks", result.report.totalChecks, "violations", result.report.violationCounts, "inconclusive", result.report.inconclusiveKeys)
    for v in result.report.violations.prefix(12) { print("   -", v.kind.rawValue, v.message) }
    print("  signature:", result.report.signature)
}
print("diagnostics", sink.counts)
if ProcessInfo.processInfo.environment["DEBUG_MISSING"] != nil {
    for attempt in 0..<40 {
        let r = ChaosRunner().run(Scenario(configuration: configuration, seed: seed &+ UInt64(attempt)), against: GuardTarget(diagnostics: sink))
        guard let v = r.report.violations.first(where: { $0.kind == .missingDelivery }) else { continue }
        print(v.message)
        // find the observe: "observe (worker W op I: controller C, object O"
        let m = v.message
        func num(after s: String) -> Int? { guard let r = m.range(of: s) else { return nil }; return Int(m[r.upperBound...].prefix(while: { $0.isNumber })) }
        let c = num(after: "controller ")!, o = num(after: "object ")!
        let ops = r.history.operations.filter { ($0.controller == c && ($0.object == o || $0.object == -1)) || ($0.kind == .mutate && $0.object == o) || (($0.kind == .releaseObserver || $0.kind == .releaseController) && $0.controller == c) }
        let t0 = ops.first?.call ?? 0
        for op in ops { print(op.call - t0, op.ret - t0, op.kind, "w\(op.worker)", "idx \(op.index)", "id \(op.id)", "parent \(op.parent)", op.key?.name ?? "-", op.options.text, op.outcome, op.action, "ctrl", op.controller) }
        let regIDs = Set(ops.filter { $0.kind == .observe }.map(\.id))
        for d in r.history.deliveries where regIDs.contains(d.registration) { print("  delivery reg \(d.registration) cause \(d.cause) t \(d.time - t0) prior \(d.isPrior) w\(d.worker) obs \(d.observer)") }
        print("controller end", r.history.controllerEndTimes[c].map { $0 - t0 } as Any, "observer", r.history.controllerObservers[c] as Any, r.history.controllerObservers[c].flatMap { r.history.observerDeinitTimes[$0] }.map { $0 - t0 } as Any)
        break
    }
}
