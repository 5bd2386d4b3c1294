/// Runs ``LinearizabilityChecker`` on every (controller, object) of a guard-semantics run: observe and unobserve of
/// each key path, unobserve of the whole object, unobserve-all of the controller, and the `isObserving` and
/// `observedKeyPaths` queries, all against one state per object.
struct LinearizabilityChecks {
    let index: HistoryIndex

    func run(into verdict: inout Verdict) {
        var records: [HistoryIndex.Pair: [OperationRecord]] = [:]
        var calls: [HistoryIndex.Pair: [LinearizabilityChecker.Call]] = [:]
        for record in index.operations.values {
            guard let effect = effect(of: record) else { continue }
            let pair = HistoryIndex.Pair(controller: record.controller, object: record.object)
            records[pair, default: []].append(record)
            calls[pair, default: []].append(.init(call: record.call, ret: record.ret, effect: effect))
        }
        // Unobserve-all clears every object of its controller that has a history. One that returned before the
        // object's first call began, or began after its last call returned, changes no result: left out.
        for pair in Array(calls.keys) {
            let list = calls[pair]!
            let first = list.map(\.call).min()!
            let last = list.map(\.ret).max()!
            for clear in index.allUnobserves[pair.controller] ?? [] where clear.ret > first && clear.call < last {
                records[pair]!.append(clear)
                calls[pair]!.append(.init(call: clear.call, ret: clear.ret, effect: .clear))
            }
        }
        let checker = LinearizabilityChecker()
        for (pair, list) in calls {
            verdict.count("observe/unobserve results linearizable")
            let pairRecords = records[pair]!
            switch checker.check(list, describing: { Self.label(pairRecords[$0]) }) {
            case .linearizable:
                break
            case .inconclusive:
                verdict.inconclusiveKeys += 1
            case .violated(let why):
                verdict.add(.init(.nonLinearizable, "controller \(pair.controller), object \(pair.object): \(why)"))
            }
        }
    }

    /// What `record` does to its (controller, object), or `nil` if it takes no part (results that change nothing,
    /// such as `.invalid`, are checked by ``ResultChecks``).
    private func effect(of record: OperationRecord) -> LinearizabilityChecker.Effect? {
        switch record.kind {
        case .observe:
            guard let key = record.key, !key.isRefused else { return nil }
            switch record.outcome {
            case .registered: return .observe(key: key.rawValue, registered: true)
            case .duplicate: return .observe(key: key.rawValue, registered: false)
            default: return nil
            }
        case .unobserve:
            guard let key = record.key, let removal = Self.removal(record.outcome) else { return nil }
            return .unobserve(key: key.rawValue, removal)
        case .unobserveObject:
            return Self.removal(record.outcome).map { .unobserveObject($0) }
        case .isObserving:
            guard record.outcome == .answered, let key = record.key else { return nil }
            return .isObserving(key: key.rawValue, answer: record.answer != 0)
        case .observedKeyPaths:
            guard record.outcome == .answered else { return nil }
            return .observedKeys(UInt64(bitPattern: Int64(record.answer)))
        default:
            return nil
        }
    }

    private static func removal(_ outcome: OperationRecord.Outcome) -> LinearizabilityChecker.Removal? {
        switch outcome {
        case .removed: return .removed
        case .alreadyRemoved: return .alreadyRemoved
        case .notRegistered: return .notRegistered
        default: return nil
        }
    }

    private static func label(_ record: OperationRecord) -> String {
        var text = "\(OperationDescription.of(record)) → \(record.outcome)"
        if record.outcome == .answered { text += " \(OperationDescription.answer(of: record))" }
        return text
    }
}
