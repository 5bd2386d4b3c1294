/// The notification rules: every notification has a cause and a live registration, carries the right values,
/// comes once, prior before change; every registration live for a whole change hears about it; `.initial` comes
/// exactly once.
struct DeliveryChecks {
    let index: HistoryIndex
    let history: History

    private struct PairKey: Hashable {
        let registration: Int
        let change: Int
    }

    private struct PairCount {
        var changes = 0
        var priors = 0
        var firstChangeSequence = Int.max
        var firstPriorSequence = Int.max
    }

    func run(into report: inout OracleReport) {
        var pairs: [PairKey: PairCount] = [:]
        var initials: [Int: Int] = [:]
        for delivery in history.deliveries {
            check(delivery, pairs: &pairs, initials: &initials, report: &report)
        }
        checkPairs(pairs, report: &report)
        checkLiveRegistrationsHeard(pairs, report: &report)
        checkInitials(initials, report: &report)
    }

    // MARK: Each notification

    private func check(
        _ delivery: DeliveryRecord, pairs: inout [PairKey: PairCount], initials: inout [Int: Int],
        report: inout OracleReport
    ) {
        report.count("notification has a live registration and a cause")
        guard let observe = index.observes[delivery.registration] else {
            return report.add(.init(.unexpectedDelivery, "a notification reached registration \(delivery.registration), which no observe made"))
        }
        guard index.windows[delivery.registration] != nil else {
            return report.add(.init(.unexpectedDelivery, "the handler of \(describe(observe)), which reported \(observe.outcome), ran"))
        }
        if delivery.worker < 0 {
            report.add(.init(.unexpectedDelivery, "a notification for \(describe(observe)) arrived on a thread that runs no operation"))
        }
        report.count("notification names its observer and key path")
        if delivery.observer < 0 || delivery.observer != observe.observer || !delivery.keyPathMatches {
            report.add(.init(
                .misroutedDelivery,
                "a notification for \(describe(observe)) named observer \(delivery.observer) and "
                    + (delivery.keyPathMatches ? "the right key path" : "another key path")))
        }
        if let gone = history.observerDeinitTimes[observe.observer], gone < delivery.time {
            report.add(.init(.misroutedDelivery, "a notification for \(describe(observe)) came after observer \(observe.observer) was gone"))
        }
        guard let cause = index.operations[delivery.cause] else {
            return report.add(.init(.unexpectedDelivery, "a notification for \(describe(observe)) arrived while no operation was running"))
        }
        switch cause.kind {
        case .observe where cause.id == observe.id:
            initials[observe.id, default: 0] += 1
            checkInitialValues(delivery, observe: observe, report: &report)
        case .mutate:
            checkChange(delivery, observe: observe, change: cause, pairs: &pairs, report: &report)
        default:
            report.add(.init(.unexpectedDelivery, "a notification for \(describe(observe)) arrived during \(describe(cause)), which changes nothing"))
        }
    }

    private func checkInitialValues(_ delivery: DeliveryRecord, observe: OperationRecord, report: inout OracleReport) {
        report.count("initial notification content")
        let options = observe.options
        guard options.contains(.initial) else {
            return report.add(.init(.initialNotExactlyOnce, "\(describe(observe)) did not ask for .initial but got an initial notification"))
        }
        var problems: [String] = []
        if delivery.kind != 1 { problems.append("kind \(delivery.kind) instead of setting") }
        if delivery.isPrior { problems.append("marked prior") }
        if delivery.hasOld { problems.append("an old value") }
        if delivery.hasNew != options.contains(.new) { problems.append(options.contains(.new) ? "no new value" : "a new value it did not ask for") }
        if options.contains(.new), delivery.hasNew, delivery.newValue != observe.newValue {
            problems.append("new \(delivery.newValue) instead of \(observe.newValue)")
        }
        if !problems.isEmpty {
            report.add(.init(.valueMismatch, "the initial notification of \(describe(observe)) had " + problems.joined(separator: ", ")))
        }
    }

    private func checkChange(
        _ delivery: DeliveryRecord, observe: OperationRecord, change: OperationRecord, pairs: inout [PairKey: PairCount],
        report: inout OracleReport
    ) {
        let key = observe.key!
        report.count("notification belongs to its change")
        guard change.object == observe.object, change.key!.notifiedKeys.contains(key) else {
            return report.add(.init(.unexpectedDelivery, "\(describe(observe)) heard about \(describe(change)), which does not affect it"))
        }
        let window = index.windows[observe.id]!
        report.count("no notification outside the registration")
        if change.ret < window.mayStart || change.call > window.sureEnd {
            report.add(.init(
                .deliveryOutsideRegistration,
                "\(describe(observe)) heard about \(describe(change)), made "
                    + (change.ret < window.mayStart ? "before the observe began" : "after the registration was surely gone")))
        }
        report.count("notification values")
        let (expectedOld, expectedNew) = key == change.key ? (change.oldValue, change.newValue) : (change.oldSum, change.newSum)
        let options = observe.options
        var problems: [String] = []
        if delivery.kind != 1 { problems.append("kind \(delivery.kind) instead of setting") }
        if delivery.isPrior {
            if !options.contains(.prior) { problems.append("a prior notification it did not ask for") }
            if delivery.hasNew { problems.append("a new value in the prior notification") }
        } else if delivery.hasNew != options.contains(.new) {
            problems.append(options.contains(.new) ? "no new value" : "a new value it did not ask for")
        } else if delivery.hasNew, delivery.newValue != expectedNew {
            problems.append("new \(delivery.newValue) instead of \(expectedNew)")
        }
        if delivery.hasOld != options.contains(.old) {
            problems.append(options.contains(.old) ? "no old value" : "an old value it did not ask for")
        } else if delivery.hasOld, delivery.oldValue != expectedOld {
            problems.append("old \(delivery.oldValue) instead of \(expectedOld)")
        }
        if !problems.isEmpty {
            report.add(.init(.valueMismatch, "\(describe(observe)) heard about \(describe(change)) with " + problems.joined(separator: ", ")))
        }
        var count = pairs[PairKey(registration: observe.id, change: change.id)] ?? PairCount()
        if delivery.isPrior {
            count.priors += 1
            count.firstPriorSequence = min(count.firstPriorSequence, delivery.sequence)
        } else {
            count.changes += 1
            count.firstChangeSequence = min(count.firstChangeSequence, delivery.sequence)
        }
        pairs[PairKey(registration: observe.id, change: change.id)] = count
    }

    // MARK: Per registration and change

    private func checkPairs(_ pairs: [PairKey: PairCount], report: inout OracleReport) {
        for (pair, count) in pairs {
            report.count("one notification per change and registration")
            let observe = index.observes[pair.registration]!
            let change = index.operations[pair.change]!
            if count.changes > 1 || count.priors > 1 {
                report.add(.init(.duplicateDelivery, "\(describe(observe)) heard about \(describe(change)) \(count.changes) times (\(count.priors) prior)"))
            }
            if observe.options.contains(.prior), count.changes > 0 {
                if count.priors == 0 {
                    report.add(.init(.priorOrder, "\(describe(observe)) heard about \(describe(change)) without the prior notification it asked for"))
                } else if count.firstPriorSequence > count.firstChangeSequence {
                    report.add(.init(.priorOrder, "\(describe(observe)) heard the prior notification of \(describe(change)) after the change"))
                }
            }
        }
    }

    private func checkLiveRegistrationsHeard(_ pairs: [PairKey: PairCount], report: inout OracleReport) {
        for (id, window) in index.windows {
            let observe = window.observe
            guard window.sureStart < window.mayEnd else { continue }
            for changedKey in StressKey.stored where changedKey.notifiedKeys.contains(observe.key!) {
                guard let changes = index.changes[.init(object: observe.object, key: changedKey)] else { continue }
                var low = 0
                var high = changes.count
                while low < high {
                    let middle = (low + high) / 2
                    if changes[middle].call <= window.sureStart { low = middle + 1 } else { high = middle }
                }
                for change in changes[low...] {
                    if change.call >= window.mayEnd { break }
                    guard change.ret < window.mayEnd else { continue }
                    report.count("a live registration hears every change")
                    let count = pairs[PairKey(registration: id, change: change.id)] ?? PairCount()
                    if count.changes == 0 {
                        report.add(.init(.missingDelivery, "\(describe(observe)) was live throughout \(describe(change)) but did not hear about it"))
                    }
                }
            }
        }
    }

    private func checkInitials(_ initials: [Int: Int], report: inout OracleReport) {
        for (id, window) in index.windows where window.observe.options.contains(.initial) {
            report.count("initial exactly once")
            let observe = window.observe
            let delivered = initials[id] ?? 0
            if delivered > 1 {
                report.add(.init(.initialNotExactlyOnce, "\(describe(observe)) got \(delivered) initial notifications"))
            } else if delivered == 0 {
                report.add(.init(.initialNotExactlyOnce, "\(describe(observe)) returned without its initial notification"))
            }
        }
    }

    private func describe(_ record: OperationRecord) -> String {
        OperationDescription.of(record)
    }
}
