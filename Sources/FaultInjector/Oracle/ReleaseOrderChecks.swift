/// A bulk removal (`unobserveAll()`, `unobserve(object)`, releasing a controller) releases the registrations it takes
/// out in the order they were made: the deinits those releases set off (of handlers, of what they captured) then run
/// in an order that does not depend on object addresses. Registration A was surely made before B when A's observe
/// returned before B's was called; the handlers each removal released on its thread (``History/bulkReleases``) must
/// not release B before A. Only registrations whose observe returned before the removal began are judged: one made
/// while the removal ran may not be part of it, and may still go on its thread (an object deinitializing during the
/// removal drops its weakly held registrations there). A registration that a change under way still holds goes when
/// that change ends, after the removal, and is not in its list.
struct ReleaseOrderChecks {
    let index: HistoryIndex
    let history: History

    /// The rule, in the guard's words.
    static let rule = "a bulk removal releases its registrations in the order they were made"

    func run(into verdict: inout Verdict) {
        for removal in history.bulkReleases where removal.released.count > 1 {
            verdict.count(Self.rule)
            check(removal, verdict: &verdict)
        }
    }

    /// Reports the first registration `removal` released after one made later than it.
    private func check(_ removal: BulkReleaseRecord, verdict: inout Verdict) {
        // The latest call among the registrations released so far: a registration whose observe returned before it
        // was made before one of them, and should have gone first.
        var latest: OperationRecord?
        let began = removal.operation >= 0 ? index.operations[removal.operation]?.call : nil
        for id in removal.released {
            // The handler of an observe that registered nothing (a duplicate, a refused one) goes when its call ends.
            guard let observe = index.observes[id], observe.outcome == .registered else { continue }
            if let began, observe.ret >= began { continue }
            if let latest, observe.ret < latest.call {
                let what = removal.operation >= 0
                    ? index.operations[removal.operation].map(OperationDescription.of) ?? "operation #\(removal.operation)"
                    : "the release of controller \(removal.controller) at the end of the run"
                verdict.add(
                    .init(
                        .releaseOrder,
                        "\(Self.rule), but \(what) released \(OperationDescription.of(observe)) after "
                            + "\(OperationDescription.of(latest)), which was made after it"))
                return
            }
            if latest == nil || observe.call > latest!.call { latest = observe }
        }
    }
}
