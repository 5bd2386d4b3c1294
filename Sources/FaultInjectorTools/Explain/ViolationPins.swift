import FaultInjector
import GuardCore

/// Pins each oracle violation to the line where it became inevitable: the notification it names (the delivery of
/// one of its operations' changes to one of its registrations), else the latest result of an operation it names,
/// else the first misuse of the kind it names, else the last step of a run abandoned blocked (deadlocks), else the end
/// of the run (leaks).
///
/// Violations name operations the way the oracle writes them (``OperationDescription``); finding those texts in a
/// message needs no knowledge of the individual checks, so checks added later are pinned too.
struct ViolationPins {
    /// Labels by operation id, the line each operation returned on, notification lines, misuse lines.
    let state: (labels: [Int: String], endedLine: [Int: Int], deliveries: [(line: Int, registration: Int, cause: Int)], misuses: [(line: Int, kind: KVOMisuse.Kind)])
    /// The end-of-run line.
    let endLine: Int
    /// Whether the run was abandoned (its workers blocked for good): what names nothing is pinned where it stopped.
    let abandoned: Bool
    /// The story's names for the run's instances, which replace the oracle's ids.
    let names: StoryNames

    func pin(_ verdict: Verdict, records: [OperationRecord], into story: inout RunStory) {
        let descriptions = records.compactMap { record -> (text: String, id: Int, kind: String)? in
            guard state.labels[record.id] != nil else { return nil }
            return (OperationDescription.of(record), record.id, "\(record.kind)")
        }.sorted { $0.text.count > $1.text.count }
        var pinned: [(line: Int, kind: String, message: String, labels: [String])] = []
        for violation in verdict.violations {
            var message = violation.message
            var named: [Int] = []
            for description in descriptions where message.contains(description.text) {
                named.append(description.id)
                message = message.replacingOccurrences(
                    of: description.text, with: "\(description.kind) \(state.labels[description.id]!)")
            }
            pinned.append(
                (line(for: violation.message, named: Set(named)), violation.kind.rawValue, names.rename(message),
                 named.compactMap { state.labels[$0] }))
        }
        // Numbered in the order they happened.
        for (offset, violation) in pinned.enumerated().sorted(by: { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }).map(\.element).enumerated() {
            let number = offset + 1
            story.violations.append(
                RunStory.PinnedViolation(
                    number: number, kind: violation.kind, message: violation.message, line: violation.line,
                    labels: violation.labels))
            story.lines[violation.line].violations.append(number)
        }
    }

    private func line(for message: String, named: Set<Int>) -> Int {
        if let delivery = state.deliveries.last(where: { named.contains($0.registration) && named.contains($0.cause) }) {
            return delivery.line
        }
        if let ended = named.compactMap({ state.endedLine[$0] }).max() {
            return ended
        }
        for kind in KVOMisuse.Kind.allCases where message.contains(kind.rawValue) {
            if let misuse = state.misuses.first(where: { $0.kind == kind }) { return misuse.line }
        }
        return abandoned && endLine > 0 ? endLine - 1 : endLine
    }
}
