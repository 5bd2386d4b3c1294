import FaultInjector

/// The marks a story uses, the same in its text and on its page. Each is a plain text character of the common fonts
/// (Latin-1, punctuation, arrows, geometric shapes, dingbats that have no emoji form): none needs an emoji font, and
/// none turns into a coloured picture on any platform.
enum StoryGlyph {
    /// A notification reached a registration.
    static let notification = "»"
    /// A misuse reached the runtime; also the prefix of a violation's number (`✗1`).
    static let misuse = "✗"
    /// A worker waits for a lock another holds.
    static let waits = "‖"
    /// The scheduler switched away from a worker in the middle of an operation.
    static let preempted = "⇥"
    /// An operation's result.
    static let result = "→"
    /// The row a violation is pinned to.
    static let violation = "◄"

    /// The legend line of a text story.
    static let legend = "\(notification) notification   \(misuse) misuse that reached the runtime   \(waits) waits for a lock   "
        + "\(preempted) preempted   \(result) result   \(violation) violation"
}
