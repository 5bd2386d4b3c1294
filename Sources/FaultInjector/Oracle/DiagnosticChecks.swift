import GuardCore

/// Every diagnostic checked against the result it belongs to (for systems that report diagnostics): one
/// `duplicateObservation` per `.duplicate`, one `doubleRemoval` per `.alreadyRemoved`, one `removalOfUnregistered`
/// per `.notRegistered`, one `invalidArgument` per `.invalid` (with a reason that fits), none for anything else, each
/// naming the call's key path, object and call site. A notification dropped for a gone observer is reported at most once per
/// registration, only once the observer may be gone, and at least once when a change it hears was made after its
/// observer was gone while it was surely still registered; a chain that stops making sense (`keyPathUnavailable`) is
/// reported once each time a registration of `link.k0` is re-wired onto an object without the leaf key (so at least
/// once per such link made while it surely lived, and at most once per such link made while it possibly lived, plus
/// once for its own first wiring).
struct DiagnosticChecks {
    let index: HistoryIndex
    let history: History

    /// The rule, as the checks count it.
    static let rule = "one diagnostic per absorbed mistake, naming its call site"

    /// How the world's observers and objects are named: every controller observes for a ``StressObserver``, and
    /// every operation names a ``StressObject``.
    static let observerType = ObjectDescription.typeName(StressObserver.self)
    static let objectType = ObjectDescription.typeName(StressObject.self)

    func run(into verdict: inout Verdict) {
        var byOperation: [Int: [DiagnosticRecord]] = [:]
        var byRegistration: [Int: [DiagnosticRecord]] = [:]
        for event in history.diagnostics {
            checkNames(of: event, into: &verdict)
            switch event.kind {
            case .observerDeallocated, .keyPathUnavailable: byRegistration[event.operation, default: []].append(event)
            default: byOperation[event.operation, default: []].append(event)
            }
        }
        for record in index.operations.values {
            check(record, events: byOperation.removeValue(forKey: record.id) ?? [], into: &verdict)
        }
        for (operation, events) in byOperation {
            verdict.add(.init(
                .diagnosticMismatch,
                "\(events.count) \(events[0].kind) diagnostic(s) named call site \(operation), which no performed call had"))
        }
        for (registration, events) in byRegistration {
            checkRegistrationEvents(events, of: registration, into: &verdict)
        }
        for (id, window) in index.windows where window.observe.key?.isDotted == true && byRegistration[id] == nil {
            checkRegistrationEvents([], of: id, into: &verdict)
        }
        for (id, window) in index.windows
        where byRegistration[id]?.contains(where: { $0.kind == .observerDeallocated }) != true {
            checkGoneObserverReported(window, into: &verdict)
        }
    }

    /// Every event names the observer's type, the object's type (when it names an object) and the thread that
    /// reported it.
    private func checkNames(of event: DiagnosticRecord, into verdict: inout Verdict) {
        guard let observerType = event.observerType else { return }
        verdict.count("a diagnostic names its observer's and object's types and its thread")
        var problems: [String] = []
        if observerType != Self.observerType { problems.append("observer type \(observerType) instead of \(Self.observerType)") }
        if event.objectAddress != nil, event.objectType != Self.objectType {
            problems.append("object type \(event.objectType ?? "none") instead of \(Self.objectType)")
        } else if event.objectAddress == nil, let objectType = event.objectType {
            problems.append("object type \(objectType) without an object")
        }
        if !event.namesReportingThread { problems.append("a thread other than the one that reported it") }
        guard !problems.isEmpty else { return }
        verdict.add(.init(
            .diagnosticMismatch,
            "a \(event.kind) diagnostic (call site \(event.operation)) named " + problems.joined(separator: ", ")))
    }

    /// A registration whose observer was gone when a change it hears began, while it was surely still registered
    /// (no removal may have ended it, its controller was not ending) and hearing changes, must have reported the gone
    /// observer.
    private func checkGoneObserverReported(_ window: RegistrationWindow, into verdict: inout Verdict) {
        let observe = window.observe
        guard let gone = history.observerDeinitTimes[observe.observer], let key = observe.key else { return }
        let controllerEnds = history.controllerEndStartTimes[observe.controller] ?? .max
        let from = max(gone, window.hearsFrom, window.sureStart)
        for changedKey in key.notifyingKeys {
            let changes = index.changes[.init(object: observe.object, key: changedKey)] ?? []
            let unheard = changes.first { change in
                change.call > from && change.ret < controllerEnds
                    && window.surelyInTable(from: change.call, to: change.ret, excluding: -1)
            }
            guard let unheard else { continue }
            verdict.count("a notification for a gone observer is reported once")
            return verdict.add(.init(
                .diagnosticMismatch,
                "\(OperationDescription.of(observe)) never reported its gone observer, though \(OperationDescription.of(unheard)) "
                    + "reached it after the observer was gone"))
        }
    }

    /// An object address as diagnostics print it, or `none`.
    private static func hex(_ address: UInt?) -> String {
        address.map { "0x" + String($0, radix: 16) } ?? "none"
    }

    /// The diagnostic a call's result must come with, if any.
    private func expectedKind(of record: OperationRecord) -> GuardDiagnostic.Kind? {
        switch (record.kind, record.outcome) {
        case (.observe, .duplicate): return .duplicateObservation
        case (.observe, .invalid), (.unobserve, .invalid), (.unobserveObject, .invalid): return .invalidArgument
        case (.unobserve, .alreadyRemoved), (.unobserveObject, .alreadyRemoved): return .doubleRemoval
        case (.unobserve, .notRegistered), (.unobserveObject, .notRegistered): return .removalOfUnregistered
        default: return nil
        }
    }

    private func check(_ record: OperationRecord, events: [DiagnosticRecord], into verdict: inout Verdict) {
        verdict.count(Self.rule)
        let expected = expectedKind(of: record)
        guard let expected else {
            if let event = events.first {
                verdict.add(.init(
                    .diagnosticMismatch,
                    "\(OperationDescription.of(record)) reported \(record.outcome) but came with a \(event.kind) diagnostic"))
            }
            return
        }
        let describe = { OperationDescription.of(record) }
        guard events.count == 1, let event = events.first else {
            return verdict.add(.init(
                .diagnosticMismatch,
                "\(describe()) reported \(record.outcome) with \(events.count) diagnostics instead of one \(expected)"))
        }
        var problems: [String] = []
        if event.kind != expected { problems.append("kind \(event.kind) instead of \(expected)") }
        if record.objectAddress != 0, event.objectAddress != record.objectAddress {
            problems.append("object \(Self.hex(event.objectAddress)) instead of \(Self.hex(record.objectAddress))")
        }
        if let expectedKeyPath = expectedKeyPath(of: record) {
            // Told apart by their UTF-8 bytes, as the guard tells key paths apart.
            if !(event.keyPath.map { $0.utf8.elementsEqual(expectedKeyPath.utf8) } ?? false) {
                problems.append("key path \(event.keyPath.map { "\"\($0)\"" } ?? "none") instead of \"\(expectedKeyPath)\"")
            }
        } else if record.kind == .unobserveObject, event.keyPath != nil {
            problems.append("key path \"\(event.keyPath!)\" for a removal of a whole object")
        } else if record.kind != .unobserveObject, event.keyPath == nil {
            problems.append("no key path")
        }
        if expected == .invalidArgument, let reason = event.reason, !allowedReasons(for: record).contains(reason) {
            problems.append("reason \(reason)")
        } else if expected == .invalidArgument, event.reason == nil {
            problems.append("no reason")
        }
        if !problems.isEmpty {
            verdict.add(.init(.diagnosticMismatch, "the \(expected) diagnostic of \(describe()) had " + problems.joined(separator: ", ")))
        }
    }

    /// The key path a call's diagnostic names: the string key path, or a typed key path's name; `nil` where any
    /// (a typed key path without a name is named as written) or none (a whole object) will do.
    private func expectedKeyPath(of record: OperationRecord) -> String? {
        guard record.kind != .unobserveObject else { return nil }
        return record.key?.name
    }

    /// A controller whose observer is gone refuses every observe for that reason first; otherwise a key path that
    /// cannot be observed is the reason.
    private func allowedReasons(for record: OperationRecord) -> Set<GuardDiagnostic.InvalidArgument> {
        if record.kind == .observe, record.inObjectDeinit { return [.objectDeinitializing] }
        if record.kind == .observe, index.observerMayBeGone(record.observer, before: record.ret) {
            return [.observerDeallocated, .unobservableKeyPath]
        }
        return [.unobservableKeyPath]
    }

    private func checkRegistrationEvents(
        _ events: [DiagnosticRecord], of registration: Int, into verdict: inout Verdict
    ) {
        guard let window = index.windows[registration] else {
            guard let first = events.first else { return }
            return verdict.add(.init(
                .diagnosticMismatch,
                "\(events.count) \(first.kind) diagnostic(s) named call site \(registration), which made no registration"))
        }
        let observe = window.observe
        // The registration's object, or none once a weakly held object is gone.
        for event in events
        where observe.objectAddress != 0 && event.objectAddress != nil && event.objectAddress != observe.objectAddress {
            verdict.add(.init(
                .diagnosticMismatch,
                "a \(event.kind) diagnostic of \(OperationDescription.of(observe)) named object "
                    + "\(Self.hex(event.objectAddress)) instead of \(Self.hex(observe.objectAddress))"))
        }
        let gone = events.filter { $0.kind == .observerDeallocated }
        if !gone.isEmpty {
            verdict.count("a notification for a gone observer is reported once")
            if gone.count > 1 {
                verdict.add(.init(.diagnosticMismatch, "\(OperationDescription.of(observe)) reported its gone observer \(gone.count) times"))
            }
            let first = gone.map(\.time).min()!
            let mayBeGone =
                index.observerMayBeGone(observe.observer, before: first)
                || (history.observerDeinitTimes[observe.observer].map { $0 <= first } ?? false)
            if !mayBeGone {
                verdict.add(.init(.diagnosticMismatch, "\(OperationDescription.of(observe)) reported its observer gone while it lived"))
            }
        }
        let unavailable = events.filter { $0.kind == .keyPathUnavailable }.count
        guard unavailable > 0 || observe.key?.isDotted == true else { return }
        verdict.count("a broken chain is reported once per re-wiring")
        let strangerLinks = (index.links[observe.object] ?? []).filter(HistoryIndex.linksStranger)
        // Every link to an object without k0 while it lived can re-wire it once; the observe's own first wiring can
        // read such an object once more if one was linked during the observe.
        let duringObserve = strangerLinks.contains { $0.call < observe.ret && $0.ret > observe.call }
        let possible =
            strangerLinks.filter { $0.call < window.tableSureEnd && $0.ret > window.mayStart }.count + (duringObserve ? 1 : 0)
        let certain = strangerLinks.filter { $0.call > window.sureStart && $0.ret < window.mayEnd }.count
        if observe.key?.isDotted != true || unavailable < certain || unavailable > possible {
            verdict.add(.init(
                .diagnosticMismatch,
                "\(OperationDescription.of(observe)) reported \(unavailable) broken chains, but its object's link was set to "
                    + "an object without k0 \(certain) times for sure and \(possible) times possibly while it lived"))
        }
    }
}
