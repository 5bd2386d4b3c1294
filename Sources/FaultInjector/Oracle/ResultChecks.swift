/// The results that valid arguments never produce, and the ones they must (guard semantics): observing a refused key
/// (a weak or unowned property) or a Swift key path without a name is `.invalid`, so is unobserving such a key path;
/// any other observe is `.invalid` only when the controller's observer may be gone, or (for `link.k0`) when the middle
/// object may have lacked the leaf key; an observe made from the object's own deinit is `.invalid`; a removal's result
/// is one of removed, already removed or not registered.
struct ResultChecks {
    let index: HistoryIndex

    func run(into verdict: inout Verdict) {
        for record in index.operations.values {
            switch record.kind {
            case .observe: check(observe: record, into: &verdict)
            case .unobserve, .unobserveObject: check(removal: record, into: &verdict)
            default: continue
            }
        }
    }

    private func check(observe record: OperationRecord, into verdict: inout Verdict) {
        if record.inObjectDeinit {
            // Only made of a system that promises to refuse it (SystemUnderTest.refusesObservationInObjectDeinit).
            verdict.count("an observe from the object's own deinit is refused")
            if record.outcome != .invalid {
                verdict.add(.init(
                    .unexpectedResult,
                    "\(describe(record)) reported \(record.outcome); an object running its deinit must be refused (invalid)"))
            }
            return
        }
        verdict.count("observe results valid arguments can give")
        let refused = record.key == nil || record.key!.isRefused
        switch record.outcome {
        case .registered, .duplicate:
            if refused {
                verdict.add(.init(.unexpectedResult, "\(describe(record)) reported \(record.outcome), but that key path cannot be observed"))
            }
        case .invalid:
            if refused || index.observerMayBeGone(record.observer, before: record.ret) { return }
            if record.key?.isDotted == true, index.mayLinkStranger(record.object, between: record.call, and: record.ret) { return }
            verdict.add(.init(.unexpectedResult, "\(describe(record)) reported invalid"))
        default:
            verdict.add(.init(.unexpectedResult, "\(describe(record)) reported \(record.outcome)"))
        }
    }

    private func check(removal record: OperationRecord, into verdict: inout Verdict) {
        verdict.count("unobserve results valid arguments can give")
        let unnamed = record.kind == .unobserve && record.key == nil
        let fine: Bool
        switch record.outcome {
        case .invalid: fine = unnamed
        case .removed, .alreadyRemoved, .notRegistered: fine = !unnamed
        default: fine = false
        }
        if !fine {
            verdict.add(.init(.unexpectedResult, "\(describe(record)) reported \(record.outcome)"))
        }
    }

    private func describe(_ record: OperationRecord) -> String {
        OperationDescription.of(record)
    }
}
