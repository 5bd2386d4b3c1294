/// What exploring one subtree to the end in a child process gave
/// (``ExplorationSearch/exploreSubtree(from:limit:)``): the counts, the verdict of every class met, the failures,
/// and the backtracking its races asked for at the states above it, which belong to the parent's search (which
/// already knows the branch's step: it ran the branch's first execution itself).
///
/// Exploring a subtree in one piece is what the sequential search does too (it finishes the deepest pending branch
/// before it returns above it), so the backtracking found there, added above in the order found once the subtree is
/// done, is what the sequential search would have added by then.
struct SubtreeReport: Sendable {
    /// Executions run, sleep-set blocked ones included.
    var executions = 0
    /// Executions that stopped sleep-set blocked.
    var sleepBlocked = 0
    /// Every class met: its hash and verdict.
    var verdicts: [(classHash: [UInt64], verdict: ClassVerdict)] = []
    /// The first failing class of each signature, in the order found (`execution` counts from the subtree's first).
    var failures: [ExploredFailure] = []
    /// Why the subtree was not explored to the end: a problem, a violation that stopped it, the execution limit.
    var stop: ExplorationAnswer?
    /// Backtracking for states at or above the branch, in the order found.
    var notes: [BacktrackNote] = []

    /// Whether the whole subtree was explored.
    var isComplete: Bool { stop == nil }
}

extension SubtreeReport: WireCodable {
    func write(to writer: inout WireWriter) {
        writer.write(executions)
        writer.write(sleepBlocked)
        writer.writeList(verdicts) { writer, met in
            writer.writeList(met.classHash) { $0.write($1) }
            writer.write(met.verdict.digest)
            writer.write(met.verdict.signature)
        }
        writer.writeList(failures) { writer, failure in
            writer.write(failure.signature)
            writer.writeList(failure.examples) { $0.write($1) }
            writer.writeList(failure.canonicalSchedule) { $0.write($1) }
            writer.write(failure.execution)
        }
        writer.writeOptional(stop) { writer, stop in
            switch stop {
            case .complete: writer.write(0)
            case .completeUpToPreemptions(let bound): writer.write(1); writer.write(bound)
            case .violation: writer.write(2)
            case .notAProof(let reason): writer.write(3); writer.write(reason)
            }
        }
        writer.writeList(notes) { writer, note in
            switch note {
            case .sourceSet(let depth, let initials, let preferred):
                writer.write(0); writer.write(depth); writer.writeList(initials) { $0.write($1) }; writer.write(preferred)
            case .bounded(let depth, let worker):
                writer.write(1); writer.write(depth); writer.write(worker)
            }
        }
    }

    init(from reader: inout WireReader) throws {
        executions = try reader.int()
        sleepBlocked = try reader.int()
        verdicts = try reader.list { reader in
            let classHash = try reader.list { try $0.uint64() }
            return (classHash, ClassVerdict(digest: try reader.string(), signature: try reader.string()))
        }
        failures = try reader.list { reader in
            ExploredFailure(
                signature: try reader.string(), examples: try reader.list { try $0.string() },
                canonicalSchedule: try reader.list { try $0.int() }, execution: try reader.int())
        }
        stop = try reader.optional { reader in
            let start = reader.offset
            switch try reader.int() {
            case 0: return .complete
            case 1: return .completeUpToPreemptions(try reader.int())
            case 2: return .violation
            case 3: return .notAProof(try reader.string())
            default: throw WireReader.Malformed(offset: start)
            }
        }
        notes = try reader.list { reader in
            let start = reader.offset
            switch try reader.int() {
            case 0:
                return .sourceSet(depth: try reader.int(), initials: try reader.list { try $0.int() }, preferred: try reader.int())
            case 1: return .bounded(depth: try reader.int(), worker: try reader.int())
            default: throw WireReader.Malformed(offset: start)
            }
        }
    }
}
