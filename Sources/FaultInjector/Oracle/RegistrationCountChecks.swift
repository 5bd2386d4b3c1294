/// The counts a controller gives (guard semantics): what `unobserveAll()` says it removed and what
/// `registrationCount` answers must lie between the registrations surely in the controller's table throughout the
/// call and those possibly in it at some instant of the call.
struct RegistrationCountChecks {
    let index: HistoryIndex

    func run(into verdict: inout Verdict) {
        var windowsByController: [Int: [RegistrationWindow]] = [:]
        for window in index.windows.values {
            windowsByController[window.observe.controller, default: []].append(window)
        }
        for record in index.operations.values {
            let counted: Bool
            switch record.kind {
            case .unobserveAll: counted = record.answer >= 0
            case .countRegistrations: counted = record.outcome == .answered
            default: counted = false
            }
            guard counted else { continue }
            verdict.count("registration counts within what was surely and possibly registered")
            let windows = windowsByController[record.controller] ?? []
            let excluded = record.kind == .unobserveAll ? record.id : Int.min
            let surely = windows.filter { $0.surelyInTable(from: record.call, to: record.ret, excluding: excluded) }.count
            let possibly = windows.filter { $0.possiblyInTable(from: record.call, to: record.ret, excluding: excluded) }.count
            if record.answer < surely || record.answer > possibly {
                let what = record.kind == .unobserveAll ? "removed" : "counted"
                verdict.add(.init(
                    .nonLinearizable,
                    "\(OperationDescription.of(record)) \(what) \(record.answer) registrations, but \(surely) were surely "
                        + "and \(possibly) possibly registered during the call"))
            }
        }
    }
}
