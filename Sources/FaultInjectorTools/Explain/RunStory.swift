import FaultInjector

/// A failing run told as a story a person can follow: one line per interesting step in the column of the worker
/// that took it, every operation with its result, every notification, every misuse that reached the runtime, and
/// each oracle violation pinned to the step where it became inevitable. ``StoryText`` prints it, ``StoryPage``
/// draws it as a self-contained HTML page.
///
/// Operations are labelled `#1`, `#2`, ... in the order they began; the violation messages use the same labels.
public struct RunStory: Sendable {
    /// Where the run came from.
    public struct Header: Sendable {
        /// The seed file's name.
        public var title: String
        /// The system under test.
        public var target: String
        /// `controlled (pct depth 3)` or `chaos`.
        public var runner: String
        /// The scenario seed.
        public var seed: String
        /// Workers.
        public var workers: Int
        /// Operations in the scenario.
        public var operations: Int
        /// How the run relates to the recorded one (an exact replay, or one chaos replay).
        public var provenance: String
        /// The signature the file records.
        public var recordedSignature: String
        /// This run's signature (empty if the oracle held).
        public var signature: String

        /// ` (as recorded)`, ` (recorded: X)`, or ` (the file records no failure)`.
        var comparedWithRecording: String {
            if signature == recordedSignature { return recordedSignature.isEmpty ? "" : " (as recorded)" }
            return recordedSignature.isEmpty ? " (the file records no failure)" : " (recorded: \(recordedSignature))"
        }
    }

    /// One line of the story.
    public struct Line: Sendable, Hashable {
        /// What the line shows.
        public enum Kind: String, Sendable, Hashable {
            /// An operation began (its result comes on a later line).
            case began
            /// An operation returned.
            case ended
            /// An operation began and returned with nothing in between.
            case completed
            /// An operation was skipped.
            case skipped
            /// A notification reached a registration.
            case delivered
            /// A misuse reached the runtime.
            case misuse
            /// A worker waits for a lock another holds.
            case waits
            /// The scheduler switched away from a worker in the middle of an operation.
            case preempted
            /// The end of the run: everything released.
            case end
        }

        /// The schedule step (controlled) or the event's rank in wall-clock order (chaos); `nil` for the end.
        public var step: Int?
        /// The worker (-1 for the end of the run).
        public var worker: Int
        /// Nesting: 0 for a worker's own operation, 1 inside its handler, ...
        public var depth: Int
        /// What the line shows.
        public var kind: Kind
        /// The text, with operations named by label.
        public var text: String
        /// Numbers of the violations pinned to this line (from 1).
        public var violations: [Int] = []
    }

    /// One operation, from the step it began to the step it returned.
    public struct Span: Sendable, Hashable {
        /// `#3`.
        public var label: String
        /// The worker that ran it.
        public var worker: Int
        /// Nesting depth.
        public var depth: Int
        /// Its text (`mutate o0 k0`, or a handler action).
        public var text: String
        /// The step it began.
        public var began: Int
        /// The step it returned (`nil` if it never did).
        public var ended: Int?
        /// Its result (`registered`, `removed`, `done`, `skipped`, ...).
        public var result: String
    }

    /// A notification, as a mark on its registration's bar.
    public struct Mark: Sendable, Hashable {
        /// The step.
        public var step: Int
        /// The worker that delivered it.
        public var worker: Int
        /// `initial`, `prior` or `change`.
        public var kind: String
        /// What it was about (`#3`).
        public var cause: String
        /// Its values, e.g. `old 1 → new 5`.
        public var values: String
    }

    /// A registration over its lifetime.
    public struct Registration: Sendable, Hashable {
        /// The observe that made it (`#1`).
        public var label: String
        /// That observe's text.
        public var text: String
        /// The worker that observed.
        public var worker: Int
        /// From when it may have existed (the observe began).
        public var mayStart: Int
        /// From when it surely existed (the observe returned).
        public var sureStart: Int?
        /// When it may have ended (`nil`: it lived to the end of the run).
        public var mayEnd: Int?
        /// When it surely had ended.
        public var sureEnd: Int?
        /// Its notifications.
        public var marks: [Mark]
    }

    /// A misuse that reached the runtime, as a mark.
    public struct MisuseMark: Sendable, Hashable {
        /// The step (`nil`: during the end of the run, or not localized).
        public var step: Int?
        /// The worker (-1 when not localized).
        public var worker: Int
        /// The misuse kind.
        public var kind: String
    }

    /// An oracle violation, pinned to a line.
    public struct PinnedViolation: Sendable, Hashable {
        /// Its number, from 1.
        public var number: Int
        /// The rule broken (`missing-delivery`).
        public var kind: String
        /// The oracle's message with operations named by label.
        public var message: String
        /// The line it is pinned to (an index into ``RunStory/lines``).
        public var line: Int
        /// The labels of the operations it names.
        public var labels: [String]
    }

    /// Where the run came from.
    public var header: Header
    /// The lines, in the order things happened, ending with the end of the run.
    public var lines: [Line]
    /// Every operation.
    public var spans: [Span]
    /// Every registration made.
    public var registrations: [Registration]
    /// Every misuse.
    public var misuses: [MisuseMark]
    /// The violations (the oracle keeps the first few of each kind in full).
    public var violations: [PinnedViolation]
    /// Violations counted in all (more than ``violations`` when the oracle kept only the first few of a kind).
    public var violationCount: Int
    /// The last step of the run.
    public var lastStep: Int
    /// Whether steps are schedule steps (controlled) or ranks in wall-clock order (chaos).
    public var stepsAreScheduleSteps: Bool
}
