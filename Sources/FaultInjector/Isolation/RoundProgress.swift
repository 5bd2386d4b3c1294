import GuardCore

/// How far the round running in this process has got: a number that moves while its workers make progress (the
/// chaos runner's finished operations, the controlled runner's schedule events) and while the oracle checks. A round server sends it to its
/// parent as a heartbeat, so the parent's safety-net deadline counts from the last progress, not from the start:
/// a long round on a busy machine is never killed and called a deadlock while it is still moving (see
/// ``ChildProcessSettings/answerTimeout(operations:)``).
enum RoundProgress {
    private static let cell = AtomicCell()

    /// Publishes the progress of the round running now (any value that changes while it moves).
    static func note(_ value: Int) {
        cell.word.storeInt(value, ordering: .relaxed)
    }

    /// Moves the progress on by one (the oracle, as it checks).
    static func advance() {
        _ = cell.word.add(1, ordering: .relaxed)
    }

    /// The last value published.
    static var current: Int {
        cell.word.loadInt(ordering: .relaxed)
    }

    /// The line a round server writes for a heartbeat (never a JSON object, so never taken for an answer).
    static func heartbeat(_ value: Int) -> String {
        "\(heartbeatPrefix)\(value)"
    }

    /// How every heartbeat line begins.
    static let heartbeatPrefix = "progress "
}
