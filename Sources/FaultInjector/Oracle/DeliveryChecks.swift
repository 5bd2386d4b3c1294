/// The notification rules: every notification has a cause and a live registration, carries the right kind, values
/// and indexes, comes once, prior before change, every prior followed by its change; every registration live for a whole change hears about it (through
/// a link too, when the link was stable); no change made after `unobserve` returned is delivered to the removed
/// registration; `.initial` comes exactly once.
struct DeliveryChecks {
    let index: HistoryIndex
    let history: History

    /// The rule a removal's return sets, in the words of the guard's documentation.
    static let removalRule = "no change made after unobserve returned is delivered to the removed registration"

    private struct PairKey: Hashable {
        let registration: Int
        let change: Int
    }

    private struct PairCount {
        var changes = 0
        var priors = 0
        var firstChange: DeliveryRecord?
        var firstPrior: DeliveryRecord?
    }

    func run(into verdict: inout Verdict) {
        var pairs: [PairKey: PairCount] = [:]
        var initials: [Int: Int] = [:]
        for delivery in history.deliveries {
            check(delivery, pairs: &pairs, initials: &initials, verdict: &verdict)
        }
        checkPairs(pairs, verdict: &verdict)
        checkLiveRegistrationsHeard(pairs, verdict: &verdict)
        checkInitials(initials, verdict: &verdict)
    }

    // MARK: Each notification

    private func check(
        _ delivery: DeliveryRecord, pairs: inout [PairKey: PairCount], initials: inout [Int: Int],
        verdict: inout Verdict
    ) {
        verdict.count("notification has a live registration and a cause")
        guard let observe = index.observes[delivery.registration] else {
            return verdict.add(.init(.unexpectedDelivery, "a notification reached registration \(delivery.registration), which no observe made"))
        }
        guard index.windows[delivery.registration] != nil else {
            return verdict.add(.init(.unexpectedDelivery, "the handler of \(describe(observe)), which reported \(observe.outcome), ran"))
        }
        if delivery.worker < 0 {
            verdict.add(.init(.unexpectedDelivery, "a notification for \(describe(observe)) arrived on a thread that runs no operation"))
        }
        verdict.count("notification names its observer, object and key path")
        if delivery.observer < 0 || delivery.observer != observe.observer || !delivery.keyPathMatches {
            verdict.add(.init(
                .misroutedDelivery,
                "a notification for \(describe(observe)) named observer \(delivery.observer) and "
                    + (delivery.keyPathMatches ? "the right key path" : "another key path")))
        }
        if delivery.object >= 0, delivery.object != observe.object {
            verdict.add(.init(
                .misroutedDelivery,
                "a notification for \(describe(observe)) handed the handler object \(delivery.object)"))
        }
        if let gone = history.observerDeinitTimes[observe.observer], gone < delivery.time {
            verdict.add(.init(.misroutedDelivery, "a notification for \(describe(observe)) came after observer \(observe.observer) was gone"))
        }
        guard let cause = index.operations[delivery.cause] else {
            return verdict.add(.init(.unexpectedDelivery, "a notification for \(describe(observe)) arrived while no operation was running"))
        }
        if cause.kind == .observe, cause.id == observe.id {
            initials[observe.id, default: 0] += 1
            checkInitialValues(delivery, observe: observe, verdict: &verdict)
        } else if cause.kind.isChange {
            checkChange(delivery, observe: observe, change: cause, pairs: &pairs, verdict: &verdict)
        } else {
            verdict.add(.init(.unexpectedDelivery, "a notification for \(describe(observe)) arrived during \(describe(cause)), which changes nothing"))
        }
    }

    private func checkInitialValues(_ delivery: DeliveryRecord, observe: OperationRecord, verdict: inout Verdict) {
        verdict.count("initial notification content")
        let options = observe.options
        guard options.contains(.initial) else {
            return verdict.add(.init(.initialNotExactlyOnce, "\(describe(observe)) did not ask for .initial but got an initial notification"))
        }
        var problems: [String] = []
        if delivery.kind != 1 { problems.append("kind \(delivery.kind) instead of setting") }
        if delivery.isPrior { problems.append("marked prior") }
        if delivery.hasOld { problems.append("an old value") }
        if delivery.indexMask != 0 { problems.append("indexes") }
        if delivery.hasNew != options.contains(.new) { problems.append(options.contains(.new) ? "no new value" : "a new value it did not ask for") }
        // A read that raced changes of the key is judged against them (``InitialValueChecks``).
        if options.contains(.new), delivery.hasNew, observe.newValue != StressValue.racedRead,
            delivery.newValue != observe.newValue
        {
            problems.append("new \(show(delivery.newValue)) instead of \(show(observe.newValue))")
        }
        if !problems.isEmpty {
            verdict.add(.init(.valueMismatch, "the initial notification of \(describe(observe)) had " + problems.joined(separator: ", ")))
        }
    }

    private func checkChange(
        _ delivery: DeliveryRecord, observe: OperationRecord, change: OperationRecord, pairs: inout [PairKey: PairCount],
        verdict: inout Verdict
    ) {
        verdict.count("notification belongs to its change")
        guard let expected = ChangeExpectation.of(change, forKey: observe.key!, on: observe.object, index: index) else {
            return verdict.add(.init(.unexpectedDelivery, "\(describe(observe)) heard about \(describe(change)), which does not affect it"))
        }
        let window = index.windows[observe.id]!
        // A registration with `.prior` hears of a change twice: say which notification it was.
        let heard = delivery.isPrior ? "heard (a prior notification) about" : "heard about"
        verdict.count("no notification outside the registration")
        if change.ret < window.mayStart {
            verdict.add(.init(
                .deliveryOutsideRegistration,
                "\(describe(observe)) \(heard) \(describe(change)), made before the observe began"))
        } else if change.call > window.sureEnd {
            if let removal = window.endedBy.flatMap({ index.operations[$0] }) {
                verdict.add(.init(
                    .deliveryOutsideRegistration,
                    "\(Self.removalRule), but \(describe(observe)) \(heard) \(describe(change)), made after "
                        + "\(describe(removal)) returned" + (removal.outcome == .none ? "" : " \(removal.outcome)")))
            } else {
                verdict.add(.init(
                    .deliveryOutsideRegistration,
                    "\(describe(observe)) \(heard) \(describe(change)), made after the registration was surely gone"))
            }
        }
        if window.endedBy != nil { verdict.count(Self.removalRule) }
        verdict.count("notification values")
        var problems: [String] = []
        if delivery.kind != expected.kind { problems.append("kind \(delivery.kind) instead of \(expected.kind)") }
        if delivery.indexMask != expected.indexMask {
            problems.append("indexes \(positions(delivery.indexMask)) instead of \(positions(expected.indexMask))")
        }
        let options = observe.options
        let wantsNew = options.contains(.new) && !delivery.isPrior && expected.hasNew
        let wantsOld = options.contains(.old) && expected.hasOld
        if delivery.isPrior, !options.contains(.prior) { problems.append("a prior notification it did not ask for") }
        if delivery.hasNew != wantsNew {
            problems.append(wantsNew ? "no new value" : "a new value it should not have")
        } else if wantsNew, expected.isCertain, delivery.newValue != expected.new {
            problems.append("new \(show(delivery.newValue)) instead of \(show(expected.new))")
        }
        // A change already under way when the registration was made reaches it without the old value if that was
        // never read (a dependent or dotted key path nobody observed with `.old` then, or a change nobody observed);
        // so does a change of the leaf on a middle object that began before the link to that object was surely made
        // (the forwarder wired to it joined the change under way).
        let joinedWithoutOld = wantsOld && !delivery.hasOld
            && (change.call < observe.ret || isLateJoiner(observe, of: change, window: index.windows[observe.id]))
        if delivery.hasOld != wantsOld {
            if !joinedWithoutOld { problems.append(wantsOld ? "no old value" : "an old value it should not have") }
        } else if wantsOld, expected.isCertain, delivery.oldValue != expected.old {
            problems.append("old \(show(delivery.oldValue)) instead of \(show(expected.old))")
        }
        if !problems.isEmpty {
            verdict.add(.init(.valueMismatch, "\(describe(observe)) heard about \(describe(change)) with " + problems.joined(separator: ", ")))
        }
        var count = pairs[PairKey(registration: observe.id, change: change.id)] ?? PairCount()
        if delivery.isPrior {
            count.priors += 1
            if count.firstPrior.map({ InitialFirstChecks.precedes(delivery, $0) }) ?? true { count.firstPrior = delivery }
        } else {
            count.changes += 1
            if count.firstChange.map({ InitialFirstChecks.precedes(delivery, $0) }) ?? true { count.firstChange = delivery }
        }
        pairs[PairKey(registration: observe.id, change: change.id)] = count
    }

    // MARK: Per registration and change

    private func checkPairs(_ pairs: [PairKey: PairCount], verdict: inout Verdict) {
        for (pair, count) in pairs {
            verdict.count("one notification per change and registration")
            let observe = index.observes[pair.registration]!
            let change = index.operations[pair.change]!
            if count.changes > 1 || count.priors > 1 {
                verdict.add(.init(.duplicateDelivery, "\(describe(observe)) heard about \(describe(change)) \(count.changes) times (\(count.priors) prior)"))
            }
            verdict.count("prior before its change, late joiners included")
            for violation in checkPriorOrder(of: observe, change: change, count) { verdict.add(violation) }
        }
    }

    /// Prior before its change. A registration that joined a change already under way (a *late joiner*: the change
    /// began before the registration surely existed, or, for a change of the leaf on a middle object, before the link
    /// to that object was surely made) may hear the change without its prior notification: it joined after the prior
    /// notifications went out. Whoever hears both, late joiners included, hears the prior first, and whoever hears a
    /// prior hears its change, unless the registration may have ended before the change returned.
    private func checkPriorOrder(of observe: OperationRecord, change: OperationRecord, _ count: PairCount) -> [Violation] {
        let window = index.windows[observe.id]
        var violations: [Violation] = []
        // A prior notification announces its change: the change must follow unless the registration may have ended
        // before the change was due, when it returned or, for one the guard may have held back until an `.initial`
        // notification, when the observe returned (a removal drops what is still held then).
        let heldUntil = index.guardSemantics && observe.options.contains(.initial) && change.call < observe.ret
            ? observe.ret : 0
        if count.priors > 0, count.changes == 0, max(change.ret, heldUntil) < (window?.mayEnd ?? 0) {
            violations.append(.init(.priorOrder, "\(describe(observe)) heard the prior notification of \(describe(change)) but never the change"))
        }
        guard count.priors > 0 || observe.options.contains(.prior), count.changes > 0 else { return violations }
        if count.priors > 0 {
            if let prior = count.firstPrior, let first = count.firstChange, InitialFirstChecks.precedes(first, prior) {
                let late = isLateJoiner(observe, of: change, window: window) ? " (it joined the change under way)" : ""
                violations.append(.init(.priorOrder, "\(describe(observe)) heard the prior notification of \(describe(change)) after the change\(late)"))
            }
        } else if !isLateJoiner(observe, of: change, window: window) {
            violations.append(.init(.priorOrder, "\(describe(observe)) heard about \(describe(change)) without the prior notification it asked for"))
        }
        return violations
    }

    /// Whether `observe`'s registration may have joined `change` while it was under way: the change began before the
    /// registration surely existed, or (a change of the leaf on a middle object) before the link to that object was
    /// surely made (a forwarder wired to it by a link overlapping the change joins the change under way).
    private func isLateJoiner(_ observe: OperationRecord, of change: OperationRecord, window: RegistrationWindow?) -> Bool {
        let surelyRegistered =
            change.call > (window?.sureStart ?? .max)
            && (change.object == observe.object
                || index.surelyLinks(observe.object, change.object, from: change.call, to: change.call))
        return !surelyRegistered
    }

    /// Every change that began after the registration had to hear it (``RegistrationWindow/hearsFrom``) and ended
    /// before it possibly ended, of a key it hears on its object, or of its leaf (`k0`, `gauge`) on an object it surely
    /// linked throughout.
    private func checkLiveRegistrationsHeard(_ pairs: [PairKey: PairCount], verdict: inout Verdict) {
        for (id, window) in index.windows {
            let observe = window.observe
            guard window.hearsFrom < window.mayEnd, let key = observe.key else { continue }
            for changedKey in key.notifyingKeys {
                let changes = index.changes[.init(object: observe.object, key: changedKey)] ?? []
                requireHeard(changes, by: window, id: id, from: window.hearsFrom, to: window.mayEnd, pairs, &verdict)
            }
            guard let leaf = key.leaf else { continue }
            for span in index.spansByRoot[observe.object] ?? [] {
                let start = max(window.hearsFrom, span.sureStart)
                let end = min(window.mayEnd, span.sureEnd)
                guard start < end else { continue }
                let changes = index.changes[.init(object: span.target, key: leaf)] ?? []
                requireHeard(changes, by: window, id: id, from: start, to: end, pairs, &verdict)
            }
        }
    }

    /// Reports every change of `changes` (sorted by call) that began after `start` and ended before `end` but did not
    /// reach registration `id`.
    private func requireHeard(
        _ changes: [OperationRecord], by window: RegistrationWindow, id: Int, from start: UInt64, to end: UInt64,
        _ pairs: [PairKey: PairCount], _ verdict: inout Verdict
    ) {
        var low = 0
        var high = changes.count
        while low < high {
            let middle = (low + high) / 2
            if changes[middle].call <= start { low = middle + 1 } else { high = middle }
        }
        for change in changes[low...] {
            if change.call >= end { break }
            guard change.ret < end else { continue }
            verdict.count("a live registration hears every change")
            let count = pairs[PairKey(registration: id, change: change.id)] ?? PairCount()
            if count.changes == 0 {
                verdict.add(.init(
                    .missingDelivery,
                    "\(describe(window.observe)) was live throughout \(describe(change)) but did not hear about it"))
            }
        }
    }

    private func checkInitials(_ initials: [Int: Int], verdict: inout Verdict) {
        for (id, window) in index.windows where window.observe.options.contains(.initial) {
            verdict.count("initial exactly once")
            let observe = window.observe
            let delivered = initials[id] ?? 0
            if delivered > 1 {
                verdict.add(.init(.initialNotExactlyOnce, "\(describe(observe)) got \(delivered) initial notifications"))
            } else if delivered == 0 {
                verdict.add(.init(.initialNotExactlyOnce, "\(describe(observe)) returned without its initial notification"))
            }
        }
    }

    private func describe(_ record: OperationRecord) -> String {
        OperationDescription.of(record)
    }

    private func show(_ value: Int) -> String {
        value == StressValue.nilValue ? "nil" : String(value)
    }

    private func positions(_ mask: UInt64) -> String {
        "[" + (0..<64).filter { mask & (1 << UInt64($0)) != 0 }.map(String.init).joined(separator: ",") + "]"
    }
}
