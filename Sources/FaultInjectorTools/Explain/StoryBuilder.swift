import FaultInjector
import GuardCore

/// Builds a ``RunStory`` from a run's events, its history and its verdict.
struct StoryBuilder {
    let result: RunResult
    let events: [TraceEvent]
    let lockNames: ExecutionTrace
    let header: RunStory.Header
    let stepsAreScheduleSteps: Bool

    private final class State {
        var lines: [RunStory.Line] = []
        var spans: [Int: RunStory.Span] = [:]
        var spanOrder: [Int] = []
        var labels: [Int: String] = [:]
        var beganLine: [Int: Int] = [:]
        var endedLine: [Int: Int] = [:]
        var stacks: [Int: [Int]] = [:]
        var lastDelivery: [Int: Int] = [:]
        var lastReleased: [Int: Int] = [:]
        var deliveriesSeen: [Int: Int] = [:]
        var deliveryLines: [(line: Int, registration: Int, cause: Int)] = []
        var marks: [Int: [RunStory.Mark]] = [:]
        var misuses: [RunStory.MisuseMark] = []
        var misuseLines: [(line: Int, kind: KVOMisuse.Kind)] = []
        var tracedMisuses: [KVOMisuse.Kind: Int] = [:]
        var stepOfTick: [(tick: UInt64, step: Int)] = []
        var lastStep = 0
    }

    func build() -> RunStory {
        let state = State()
        let records = Dictionary(result.history.operations.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let deliveriesByWorker = Dictionary(grouping: result.history.deliveries.filter { $0.worker >= 0 }, by: \.worker)
            .mapValues { $0.sorted { $0.sequence < $1.sequence } }
        for event in events {
            state.lastStep = max(state.lastStep, event.step)
            handle(event, state: state, records: records, deliveries: deliveriesByWorker)
        }
        let endLine = addEnd(state)
        let registrations = makeRegistrations(state, records: records)
        var story = RunStory(
            header: header, lines: state.lines, spans: state.spanOrder.compactMap { state.spans[$0] },
            registrations: registrations, misuses: state.misuses, violations: [],
            violationCount: result.verdict.totalViolations, lastStep: state.lastStep,
            stepsAreScheduleSteps: stepsAreScheduleSteps)
        ViolationPins(state: (state.labels, state.endedLine, state.deliveryLines, state.misuseLines), endLine: endLine,
            abandoned: result.verdict.abandoned, names: StoryNames(records: result.history.operations, scenario: result.scenario))
            .pin(result.verdict, records: result.history.operations, into: &story)
        return story
    }

    // MARK: Events

    private func handle(
        _ event: TraceEvent, state: State, records: [Int: OperationRecord], deliveries: [Int: [DeliveryRecord]]
    ) {
        let worker = event.worker
        let depth = state.stacks[worker]?.count ?? 0
        func add(_ kind: RunStory.Line.Kind, _ text: String, depth: Int = depth) -> Int {
            state.lines.append(RunStory.Line(step: event.step, worker: worker, depth: depth, kind: kind, text: text))
            return state.lines.count - 1
        }
        switch event.kind {
        case .decision(let point, let chosen):
            guard chosen != worker, !(state.stacks[worker]?.isEmpty ?? true) else { return }
            let place: String
            switch point {
            case .wait, .finish, .operation, .start: return
            case .acquire: place = "before taking a lock"
            case .release: place = "after releasing " + (state.lastReleased[worker].map(lockNames.describeLock) ?? "a lock")
            case .guardCore: place = "at \(point.name)"
            }
            _ = add(.preempted, "\(StoryGlyph.preempted) preempted \(place); worker \(chosen) runs")
        case .began(let id, let index, let kind, _):
            let label = makeLabel(id, state: state)
            let text = operationText(id: id, index: index, kind: kind, worker: worker, state: state, records: records)
            state.spans[id] = RunStory.Span(
                label: label, worker: worker, depth: depth, text: text, began: event.step, ended: nil, result: "")
            state.spanOrder.append(id)
            state.beganLine[id] = add(.began, "\(label) \(text)")
            state.stacks[worker, default: []].append(id)
            if let record = records[id] { state.stepOfTick.append((record.call, event.step)) }
        case .ended(let id, let outcome):
            if let position = state.stacks[worker]?.lastIndex(of: id) { state.stacks[worker]!.remove(at: position) }
            let label = state.labels[id] ?? "#?"
            let resultText = Self.describe(outcome)
            state.spans[id]?.ended = event.step
            state.spans[id]?.result = resultText
            if let record = records[id] { state.stepOfTick.append((record.ret, event.step)) }
            let depth = state.stacks[worker]?.count ?? 0
            if let began = state.beganLine[id], began == state.lines.count - 1 {
                state.lines[began].kind = .completed
                state.lines[began].text += " → \(resultText)"
                state.endedLine[id] = began
            } else {
                state.endedLine[id] = add(.ended, "\(label) → \(resultText)", depth: depth)
            }
        case .skipped(let id, let index, let kind):
            let label = makeLabel(id, state: state)
            let text = operationText(id: id, index: index, kind: kind, worker: worker, state: state, records: records)
            state.spans[id] = RunStory.Span(
                label: label, worker: worker, depth: depth, text: text, began: event.step, ended: event.step,
                result: "skipped")
            state.spanOrder.append(id)
            let line = add(
                .skipped,
                "\(label) \(text) → skipped (not performed: an empty slot or a gone controller, a key the target cannot "
                    + "observe, nothing to change, or the harness's lock order)")
            state.endedLine[id] = line
        case .delivered(let registration, let cause, let isPrior):
            delivered(
                event, registration: registration, cause: cause, isPrior: isPrior, depth: depth, state: state,
                deliveries: deliveries)
        case .misuse(let kind):
            let line = add(.misuse, "\(StoryGlyph.misuse) misuse \(kind.rawValue): \(Self.gloss(kind))")
            state.misuseLines.append((line, kind))
            state.misuses.append(RunStory.MisuseMark(step: event.step, worker: worker, kind: kind.rawValue))
            state.tracedMisuses[kind, default: 0] += 1
        case .waits(let lock, let holder):
            _ = add(.waits, "\(StoryGlyph.waits) waits for \(lockNames.describeLock(lock)), held by worker \(holder)")
        case .released(let lock):
            state.lastReleased[worker] = lock
        case .acquired, .finished:
            return
        }
    }

    /// A notification: its line (initial, prior or change, with its values) and its mark on the registration's bar.
    private func delivered(
        _ event: TraceEvent, registration: Int, cause: Int, isPrior: Bool, depth: Int, state: State,
        deliveries: [Int: [DeliveryRecord]]
    ) {
        let worker = event.worker
        let seen = state.deliveriesSeen[worker, default: 0]
        state.deliveriesSeen[worker] = seen + 1
        let record = deliveries[worker].flatMap { seen < $0.count ? $0[seen] : nil }
        let values = record.map(Self.values) ?? ""
        let kind = cause == registration ? "initial" : isPrior ? "prior" : "change"
        let registrationLabel = state.labels[registration] ?? "registration \(registration)"
        let causeLabel = state.labels[cause] ?? (cause < 0 ? "no operation" : "operation \(cause)")
        let about = kind == "initial" ? "initial notification" : kind == "prior" ? "prior notification of \(causeLabel)" : "hears \(causeLabel)"
        let text = "\(StoryGlyph.notification) \(registrationLabel) \(about)" + (values.isEmpty ? "" : " (\(values))")
        state.lines.append(RunStory.Line(step: event.step, worker: worker, depth: depth, kind: .delivered, text: text))
        state.deliveryLines.append((state.lines.count - 1, registration, cause))
        state.marks[registration, default: []].append(
            RunStory.Mark(step: event.step, worker: worker, kind: kind, cause: causeLabel, values: values))
        state.lastDelivery[worker] = registration
        if let record { state.stepOfTick.append((record.time, event.step)) }
    }

    private func makeLabel(_ id: Int, state: State) -> String {
        if let label = state.labels[id] { return label }
        let label = "#\(state.labels.count + 1)"
        state.labels[id] = label
        return label
    }

    /// A worker's own operation in its text form; a handler action as what the handler did and whose it was; a
    /// removal an object made in its own deinit as such.
    private func operationText(
        id: Int, index: Int, kind: OperationRecord.Kind, worker: Int, state: State, records: [Int: OperationRecord]
    ) -> String {
        let operations = result.scenario.operations
        if index >= 0, worker >= 0, worker < operations.count, index < operations[worker].count {
            return operations[worker][index].description
        }
        if let record = records[id], record.inObjectDeinit {
            let key = record.key.map { " \($0.name)" } ?? ""
            return "\(kind)\(key) by object #\(record.object) in its own deinit"
        }
        guard let registration = state.lastDelivery[worker], let label = state.labels[registration] else {
            return "\(kind) (a handler action)"
        }
        let action = records[registration].map { " (\($0.action))" } ?? ""
        return "\(kind) in \(label)'s handler\(action)"
    }

    /// The end of the run: misuse the trace did not place (teardown, or a chaos run), and where leaks show.
    private func addEnd(_ state: State) -> Int {
        var untraced: [String] = []
        for (kind, count) in result.recording.facts.misuses.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let left = count - state.tracedMisuses[kind, default: 0]
            guard left > 0 else { continue }
            untraced.append("\(StoryGlyph.misuse) \(kind.rawValue) ×\(left)")
            state.misuseLines.append((state.lines.count, kind))
            for _ in 0..<left { state.misuses.append(RunStory.MisuseMark(step: nil, worker: -1, kind: kind.rawValue)) }
        }
        var text = stepsAreScheduleSteps
            ? "end of run: every worker finished, everything was released"
            : "end of run"
        if result.verdict.abandoned { text = "the run was abandoned: its workers were blocked for good" }
        if !untraced.isEmpty {
            text += stepsAreScheduleSteps
                ? "; runtime misuse while releasing: " + untraced.joined(separator: ", ")
                : "; runtime misuse during the run (a chaos run does not place it): " + untraced.joined(separator: ", ")
        }
        state.lines.append(RunStory.Line(step: nil, worker: -1, depth: 0, kind: .end, text: text))
        return state.lines.count - 1
    }

    // MARK: Registrations

    private func makeRegistrations(_ state: State, records: [Int: OperationRecord]) -> [RunStory.Registration] {
        let index = HistoryIndex(result.history, guardSemantics: result.recording.promisesGuardSemantics)
        let ticks = state.stepOfTick.sorted { $0.tick < $1.tick }
        func step(at tick: UInt64) -> Int? {
            guard tick != .max else { return nil }
            var low = 0
            var high = ticks.count
            while low < high {
                let middle = (low + high) / 2
                if ticks[middle].tick <= tick { low = middle + 1 } else { high = middle }
            }
            return low == 0 ? ticks.first?.step : ticks[low - 1].step
        }
        let guardSemantics = result.recording.promisesGuardSemantics
        return state.spanOrder.compactMap { id -> RunStory.Registration? in
            guard let window = index.windows[id], let span = state.spans[id] else { return nil }
            var (mayEnd, sureEnd) = (step(at: window.mayEnd), step(at: window.sureEnd))
            if !guardSemantics {
                let end = runtimeEnd(of: window.observe).flatMap(step(at:))
                (mayEnd, sureEnd) = (end, end)
            }
            return RunStory.Registration(
                label: span.label, text: span.text, worker: span.worker, mayStart: span.began, sureStart: span.ended,
                mayEnd: mayEnd, sureEnd: sureEnd, marks: state.marks[id] ?? [])
        }
    }

    /// For a system without the guard's semantics (the raw runtime): when `observe`'s registration left the runtime,
    /// as the runtime sees it: when the first removal of it called after the observe returned returned, or when its
    /// object finished deinitializing; `nil` while it lasted to the end of the run. Releasing the observer ends
    /// nothing: the runtime keeps the registration and goes on notifying the observer.
    private func runtimeEnd(of observe: OperationRecord) -> UInt64? {
        var end = result.history.objectDeinitTimes[observe.object] ?? .max
        for removal in result.history.operations where removal.kind.isRemoval && removal.controller == observe.controller {
            guard removal.call > observe.ret, removal.ret < end else { continue }
            switch removal.outcome {
            case .invalid, .notRegistered, .alreadyRemoved, .skipped: continue
            default: break
            }
            let matches: Bool
            switch removal.kind {
            case .unobserveAll: matches = true
            case .unobserveObject: matches = removal.object == observe.object
            default:
                matches = removal.object == observe.object && removal.key == observe.key
                    && removal.context == observe.context && removal.typedKey == observe.typedKey
            }
            if matches { end = removal.ret }
        }
        return end == .max ? nil : end
    }

    // MARK: Wording

    /// `registered`, `removed`, ...; `done` for operations without a result, `returned` for a system that gives
    /// none (raw KVO).
    static func describe(_ outcome: OperationRecord.Outcome) -> String {
        switch outcome {
        case .none: return "done"
        case .unknown: return "returned"
        default: return "\(outcome)"
        }
    }

    static func values(_ delivery: DeliveryRecord) -> String {
        var parts: [String] = []
        if delivery.hasOld { parts.append("old \(delivery.oldValue)") }
        if delivery.hasNew { parts.append("new \(delivery.newValue)") }
        return parts.joined(separator: " → ")
    }

    /// What a misuse would have done under Foundation.
    static func gloss(_ kind: KVOMisuse.Kind) -> String {
        glosses[kind] ?? "a crash under Foundation"
    }

    private static let glosses: [KVOMisuse.Kind: String] = [
        .notRegistered: "removeObserver found no registration (NSRangeException)",
        .observerDeallocated: "a notification to an observer that is gone",
        .deallocatedWhileObserved: "an object deallocated while observed",
        .unpairedDidChange: "didChangeValue without willChangeValue",
        .unknownKey: "a key the object does not have (NSUnknownKeyException)",
        .invalidIndexes: "indexes that do not fit an ordered to-many property (NSRangeException)",
        .keyPathTooLong: "a key path too long to follow safely",
        .reflectionUnavailable: "a key read where the Swift runtime offers no reflection",
    ]
}
