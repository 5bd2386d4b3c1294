/// Whether a seed file's runs are compared with a recording, decided once per round (``SeedFileRound``, which
/// ``Replayer`` repeats): a chaos file never claims exactness; a controlled file's runs are compared only when it has
/// a recorded schedule with its history digest and is replayed against its own target, and otherwise
/// ``notCheckedReason`` says why.
enum ReplayExactness: Sendable, Equatable {
    /// A chaos file: it replays operations, not interleavings, so it has a rate, never an exactness.
    case notClaimed
    /// A controlled file whose runs are compared with its recorded schedule and history digest.
    case checked
    /// A controlled file whose runs cannot be compared with a recording: why, naming what the file or the replay
    /// lacks.
    case notChecked(reason: String)

    /// The exactness of replaying `file`, a controlled file or not, against the target called `targetName`
    /// (`replaysRecordedTarget`: the one the file names).
    init(file: SeedFile, controlled: Bool, targetName: String, replaysRecordedTarget: Bool) {
        guard controlled else {
            self = .notClaimed
            return
        }
        guard replaysRecordedTarget else {
            self = .notChecked(
                reason: "the replay's target \(targetName) is not the file's (\(file.target)), and a recorded schedule "
                    + "belongs to its own target: the runs follow a schedule regenerated from the strategy and seed, "
                    + "with nothing recorded to compare them with")
            return
        }
        guard let schedule = file.schedule else {
            self = .notChecked(
                reason: "the file has no recorded schedule (its \"schedule\" is missing): the runs follow one "
                    + "regenerated from the strategy and seed, with nothing recorded to compare them with")
            return
        }
        guard schedule.historyDigest != nil else {
            self = .notChecked(
                reason: "the file's schedule has no history digest (its \"schedule.historyDigest\" is missing): the "
                    + "runs followed the recorded schedule, but their histories could not be compared with the "
                    + "recorded one")
            return
        }
        self = .checked
    }

    /// Whether runs are compared with the recording (and a run without a mismatch counts as exact).
    var isChecked: Bool { self == .checked }

    /// Why a controlled file's runs cannot be compared with a recording; `nil` when they are, and for chaos.
    var notCheckedReason: String? {
        guard case .notChecked(let reason) = self else { return nil }
        return reason
    }
}
