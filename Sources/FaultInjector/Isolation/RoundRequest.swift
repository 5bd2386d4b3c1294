import Foundation

/// What a parent asks a ``RoundServer`` to do: run one seed file once (a campaign's round is its not-yet-failed
/// seed file; a replay run is the file being replayed) and answer with the verdict. Sent as one line of JSON.
package struct RoundRequest: Codable, Sendable {
    /// When the answer should carry the seed file of a failing run.
    package enum SeedFileWish: Codable, Sendable, Equatable {
        /// Never (replays).
        case never
        /// Whenever the run fails.
        case always
        /// When the run fails with a signature not in the list (the campaign wrote its limit of repeats).
        case unlessSignatureIn([String])

        func wants(_ signature: String) -> Bool {
            switch self {
            case .never: return false
            case .always: return true
            case .unlessSignatureIn(let known): return !known.contains(signature)
            }
        }
    }

    /// The run, as a seed file (its operations, or the seed that regenerates them; for a controlled run the
    /// strategy and, if recorded, the schedule to follow).
    package var file: SeedFile
    /// Run against this target instead of the file's (a recorded schedule then does not apply).
    package var target: String?
    /// Seconds without progress after which a chaos run is a deadlock.
    package var stallTimeout: Double
    /// Whether to send the failing run's seed file back.
    package var seedFile: SeedFileWish
    /// A controlled run only: follow this plan (the shrinker's ``GuidedStrategy``) instead of the file's schedule or
    /// strategy; the answer's seed file records the schedule taken.
    package var guide: SwitchPlan?

    /// A request to run `file` (against `target` instead of the file's, if given) with the other fields as named.
    package init(
        file: SeedFile, target: String? = nil, stallTimeout: Double, seedFile: SeedFileWish, guide: SwitchPlan? = nil
    ) {
        self.file = file
        self.target = target
        self.stallTimeout = stallTimeout
        self.seedFile = seedFile
        self.guide = guide
    }

    /// The fields besides the seed file, encoded on their own (see ``encoded(file:target:stallTimeout:seedFile:)``).
    private struct Header: Encodable {
        var target: String?
        var stallTimeout: Double
        var seedFile: SeedFileWish
    }

    /// A request as one line of JSON, around `file` already encoded as JSON (a campaign encodes each round's seed
    /// file once, for the file it writes before the round and for the request). It decodes as a ``RoundRequest``.
    static func encoded(file: Data, target: String?, stallTimeout: Double, seedFile: SeedFileWish) throws -> [UInt8] {
        var bytes = [UInt8](try JSONEncoder().encode(Header(target: target, stallTimeout: stallTimeout, seedFile: seedFile)))
        guard bytes.last == UInt8(ascii: "}") else { throw EncodingError.invalidValue(file, .init(codingPath: [], debugDescription: "not an object")) }
        bytes.removeLast()
        bytes.append(contentsOf: Array(#","file":"#.utf8))
        bytes.append(contentsOf: file)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}

/// A ``RoundServer``'s answer to one ``RoundRequest``, sent as one line of JSON.
package struct RoundAnswer: Codable, Sendable {
    /// The verdict, or `nil` if the request could not be run (then ``error`` says why).
    package var verdict: Verdict?
    /// The failing run written down, if the request asked for it.
    package var seedFile: SeedFile?
    /// For a controlled replay: why the run did not match the recording (`nil` if it matched, or for chaos).
    var mismatch: String?
    /// Why the request could not be run.
    package var error: String?
    /// Seconds the server spent on the request, from reading it to writing the answer.
    var busySeconds = 0.0
}

/// The first line a ``RoundServer`` writes: it is ready for requests.
struct RoundServerHello: Codable, Sendable {
    /// The server's process id.
    var pid: Int32
    /// The monotonic time (nanoseconds) at which it became ready, comparable with the parent's on one machine.
    var readyAt: UInt64
}
