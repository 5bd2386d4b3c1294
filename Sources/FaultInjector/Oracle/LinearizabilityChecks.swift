/// Runs ``LinearizabilityChecker`` on every (controller, object, key path) of a guard-semantics run.
struct LinearizabilityChecks {
    let index: HistoryIndex

    func run(into report: inout OracleReport) {
        var calls: [HistoryIndex.Triple: [LinearizabilityChecker.Call]] = [:]
        for record in index.operations.values {
            switch record.kind {
            case .observe:
                let effect: LinearizabilityChecker.Effect
                switch record.outcome {
                case .registered: effect = .observeRegistered
                case .duplicate: effect = .observeDuplicate
                case .invalid where index.observerMayBeGone(record.observer, before: record.ret):
                    // The controller's observer was let go while the call ran: no handler could ever run, so the
                    // guard registers nothing (`.invalid(.observerDeallocated)`).
                    continue
                default:
                    report.add(.init(.unexpectedResult, "\(OperationDescription.of(record)) reported \(record.outcome)"))
                    continue
                }
                calls[triple(record), default: []].append(call(record, effect))
            case .unobserve:
                let effect: LinearizabilityChecker.Effect
                switch record.outcome {
                case .removed: effect = .unobserveRemoved
                case .alreadyRemoved: effect = .unobserveAlreadyRemoved
                case .notRegistered: effect = .unobserveNotRegistered
                default:
                    report.add(.init(.unexpectedResult, "\(OperationDescription.of(record)) reported \(record.outcome)"))
                    continue
                }
                calls[triple(record), default: []].append(call(record, effect))
            default:
                continue
            }
        }
        // Bulk removals clear every key of their object or controller that has a history.
        for triple in Array(calls.keys) {
            let bulk = (index.objectUnobserves[.init(controller: triple.controller, object: triple.object)] ?? [])
                + (index.allUnobserves[triple.controller] ?? [])
            calls[triple]! += bulk.map { call($0, .clear) }
        }
        let checker = LinearizabilityChecker()
        for (triple, list) in calls {
            report.count("observe/unobserve results linearizable")
            switch checker.check(list) {
            case .linearizable:
                break
            case .inconclusive:
                report.inconclusiveKeys += 1
            case .violated(let why):
                report.add(.init(
                    .nonLinearizable,
                    "controller \(triple.controller), object \(triple.object), \(triple.key.name): \(why)"))
            }
        }
    }

    private func triple(_ record: OperationRecord) -> HistoryIndex.Triple {
        .init(controller: record.controller, object: record.object, key: record.key!)
    }

    private func call(_ record: OperationRecord, _ effect: LinearizabilityChecker.Effect) -> LinearizabilityChecker.Call {
        .init(call: record.call, ret: record.ret, effect: effect, label: "\(OperationDescription.of(record)) → \(record.outcome)")
    }
}
