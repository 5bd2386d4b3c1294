import Foundation
import GuardCore

/// Where a value-sequence consumer's values come from: GuardCore's `values(of:bufferingNewest:)` by default (a test
/// may plant a variation of it).
struct ValueSource: Sendable {
    /// Starts observing `key` of `object` with at most `limit` values waiting (making the iterator starts it).
    let makeIterator: @Sendable (_ object: StressObject, _ key: StressKey, _ limit: Int) -> ValueIterator

    /// `object.values(of: \.k0 or \.k1, bufferingNewest: limit).makeAsyncIterator()`.
    static let guardCore = ValueSource { object, key, limit in
        key == .k1
            ? ValueIterator(object.values(of: \.k1, bufferingNewest: limit).makeAsyncIterator())
            : ValueIterator(object.values(of: \.k0, bufferingNewest: limit).makeAsyncIterator())
    }
}

/// An asynchronous iterator of integers, whatever its type; used by one task only.
final class ValueIterator: @unchecked Sendable {
    private let nextValue: () async -> Int?

    init<Base: AsyncIteratorProtocol>(_ base: Base) where Base.Element == Int {
        let box = IteratorBox(base)
        nextValue = { (try? await box.base.next()) ?? nil }
    }

    /// The next value, or `nil` once the sequence ended.
    func next() async -> Int? {
        await nextValue()
    }
}

/// An iterator kept in a class, so a closure can advance it.
private final class IteratorBox<Base: AsyncIteratorProtocol>: @unchecked Sendable {
    var base: Base
    init(_ base: Base) { self.base = base }
}

/// The value-sequence consumers of one chaos round (``StreamPlan``): each a task that observes the object in its
/// slot from when the workers start, takes values as its plan says, and records what it saw (``StreamRecord``, one
/// per observation). When a sequence ends because its object deinitialized, or the consumer left the loop, it observes
/// the slot's object again; one that cancelled its task stops. After the teardown (every object released)
/// ``finish(stallTimeout:)`` waits for each sequence to end, as it must once its object is gone, and returns the records.
final class ValueStreams: @unchecked Sendable {
    private let plans: [StreamPlan]
    private let world: StressWorld
    private let source: ValueSource
    private let lock = Lock()
    /// Every observation's record so far; `current[consumer]` is the one under way, if any.
    private var records: [StreamRecord] = []
    private var current: [Int?]
    /// Records whose end the teardown decided (a consumer cancelled then does not replace it).
    private var decided: Set<Int> = []
    private var done: [Bool]
    private var tasks: [Task<Void, Never>] = []
    private var progress = 0

    init(plans: [StreamPlan], world: StressWorld, source: ValueSource) {
        self.plans = plans
        self.world = world
        self.source = source
        current = Array(repeating: nil, count: plans.count)
        done = Array(repeating: false, count: plans.count)
    }

    /// Starts every consumer.
    func start() {
        let started = plans.indices.map { consumer in
            Task.detached { [self] in
                // A cancelled consumer (the teardown gave up on it, or the round was abandoned) observes nothing more.
                while !Task.isCancelled, await observe(consumer) {}
                lock.withLock { done[consumer] = true }
            }
        }
        lock.withLock { tasks = started }
    }

    /// One observation of the slot's object; returns whether the consumer goes on with another one.
    private func observe(_ consumer: Int) async -> Bool {
        let plan = plans[consumer]
        let clock = world.clock
        guard let (objectID, iterator, from, until) = begin(plan) else { return false }
        let index = lock.withLock { () -> Int in
            records.append(StreamRecord(plan: plan, object: objectID, madeFrom: from, madeUntil: until, values: [], end: .neverEnded))
            current[consumer] = records.count - 1
            progress += 1
            return records.count - 1
        }
        var taken = 0
        var cancelledAt: UInt64?
        while true {
            let asked = clock.now
            guard let value = await iterator.next() else {
                let now = clock.now
                end(consumer, index, cancelledAt.map { .cancelled(at: $0, finished: now) } ?? .finished(at: now))
                return cancelledAt == nil
            }
            taken += 1
            update(index) { $0.values.append(.init(value: value, asked: asked, received: clock.now)) }
            switch plan.ending {
            case .cancelAfter(let count) where taken == count && cancelledAt == nil:
                // Values pile up first: a cancellation drops what waits, and the next next() ends at once.
                try? await Task.sleep(nanoseconds: UInt64(max(plan.stallMicroseconds, 200)) * 1_000)
                withUnsafeCurrentTask { $0?.cancel() }
                cancelledAt = clock.now
            case .leaveAfter(let count) where taken == count:
                end(consumer, index, .left(at: clock.now))
                return true
            default:
                break
            }
            if plan.stallMicroseconds > 0, !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(plan.stallMicroseconds) * 1_000)
            }
        }
    }

    /// Makes the iterator for `plan`'s object (holding the object only while it does); `nil` for an empty slot (after
    /// the teardown). The iterator reads the key's current value, so it is made holding the slot's mutation lock, as
    /// every read of a stored property that other threads set must be.
    private func begin(_ plan: StreamPlan) -> (Int, ValueIterator, UInt64, UInt64)? {
        let slot = world.objectSlots[plan.objectSlot]
        slot.mutationLock.lock()
        defer { slot.mutationLock.unlock() }
        guard let object = slot.object else { return nil }
        let from = world.clock.now
        let iterator = source.makeIterator(object, plan.key, plan.limit)
        let until = world.clock.now
        return (object.id, iterator, from, until)
    }

    private func update(_ index: Int, _ change: (inout StreamRecord) -> Void) {
        lock.withLock {
            change(&records[index])
            progress += 1
        }
    }

    private func end(_ consumer: Int, _ index: Int, _ end: StreamRecord.End) {
        lock.withLock {
            // An end the teardown already decided (``finish(stallTimeout:)``) stands.
            if !decided.contains(index) { records[index].end = end }
            current[consumer] = nil
            progress += 1
        }
    }

    /// Cancels every consumer (for a round whose workers were abandoned) and waits a moment for them to end, so no
    /// observation of theirs outlives the round into the next one.
    func cancelAll() {
        for task in lock.withLock({ tasks }) { task.cancel() }
        let deadline = MonotonicClock.now + 2_000_000_000
        while !lock.withLock({ done.allSatisfy { $0 } }), MonotonicClock.now < deadline { usleep(2_000) }
    }

    /// After the teardown: waits while the consumers make progress (each sequence whose object is gone must end,
    /// after the values it had buffered), for at most `stallTimeout` seconds without any; then ends what is left
    /// (recording why) and returns every observation's record.
    func finish(stallTimeout: Double) -> [StreamRecord] {
        var seen = -1
        var since = MonotonicClock.now
        while !lock.withLock({ done.allSatisfy { $0 } }) {
            let now = MonotonicClock.now
            let moved = lock.withLock { progress }
            if moved != seen {
                seen = moved
                since = now
                RoundProgress.advance()
            } else if Double(now - since) / 1e9 > stallTimeout {
                break
            }
            usleep(2_000)
        }
        let unfinished: [Task<Void, Never>] = lock.withLock {
            plans.indices.filter { !done[$0] }.map { consumer in
                if let index = current[consumer] {
                    let object = records[index].object
                    records[index].end = world.isAlive(object: object) ? .objectOutlivedTheRun : .neverEnded
                    decided.insert(index)
                }
                return tasks[consumer]
            }
        }
        for task in unfinished { task.cancel() }
        // A cancelled consumer ends at once (its next() returns nil); give it a moment, never a verdict.
        let deadline = MonotonicClock.now + UInt64(max(1, stallTimeout) * 1e9)
        while !lock.withLock({ done.allSatisfy { $0 } }), MonotonicClock.now < deadline { usleep(2_000) }
        return lock.withLock { records }
    }
}
