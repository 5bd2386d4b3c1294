import Foundation
import GuardCore
import XCTest

/// Many queues registering, removing and changing values on a few shared objects at once.
///
/// Only the values are guarded by a per-object test lock (concurrent sets of one Swift property are a data race in
/// any Swift code); the runtime's own bookkeeping gets no help. Run it under ThreadSanitizer too:
/// `swift test --sanitize=thread --filter RuntimeConcurrencyTests`.
final class RuntimeConcurrencyTests: XCTestCase {
    /// One registration as its worker remembers it.
    private struct Registration {
        let context: UnsafeMutableRawPointer?
        let options: KeyValueObservingOptions
    }

    private static let keys = ["age", "name", "fullName"]
    nonisolated(unsafe) private static let contexts: [UnsafeMutableRawPointer?] = [nil, Contexts.first, Contexts.second]
    private static let optionChoices: [KeyValueObservingOptions] = [[], [.old, .new], [.prior], [.initial], [.prior, .old]]

    /// A worker's own observers and, for each observer, object and key, its registrations oldest first. Only its
    /// own queue touches it until the run is over.
    private final class Worker: @unchecked Sendable {
        let index: Int
        let observers = (0..<3).map { _ in CountingObserver() }
        /// registrations[observer][object][key]
        var registrations: [[[[Registration]]]]
        var live = 0
        var rng: SplitMix64
        var operations = (adds: 0, removes: 0, sets: 0)

        init(index: Int, objectCount: Int) {
            self.index = index
            self.rng = SplitMix64(state: 0x5EED_0000 + UInt64(index))
            self.registrations = Array(
                repeating: Array(repeating: Array(repeating: [], count: RuntimeConcurrencyTests.keys.count), count: objectCount),
                count: 3)
        }

        func run(iterations: Int, people: [Person], locks: [NSLock]) {
            for iteration in 0..<iterations {
                let roll = rng.below(10)
                if live >= 12 || (roll < 3 && live > 0) {
                    removeOne(people: people)
                } else if roll < 7 {
                    addOne(people: people)
                } else {
                    setOne(iteration: iteration, people: people, locks: locks)
                }
            }
        }

        private func addOne(people: [Person]) {
            let observer = rng.below(observers.count)
            let object = rng.below(people.count)
            let key = rng.below(RuntimeConcurrencyTests.keys.count)
            let context = RuntimeConcurrencyTests.contexts[rng.below(RuntimeConcurrencyTests.contexts.count)]
            let options = RuntimeConcurrencyTests.optionChoices[rng.below(RuntimeConcurrencyTests.optionChoices.count)]
            people[object].addObserver(
                observers[observer], forKeyPath: RuntimeConcurrencyTests.keys[key], options: options, context: context)
            registrations[observer][object][key].append(Registration(context: context, options: options))
            live += 1
            operations.adds += 1
        }

        private func removeOne(people: [Person]) {
            var candidates: [(Int, Int, Int)] = []
            for observer in registrations.indices {
                for object in registrations[observer].indices {
                    for key in registrations[observer][object].indices
                    where !registrations[observer][object][key].isEmpty {
                        candidates.append((observer, object, key))
                    }
                }
            }
            let (observer, object, key) = candidates[rng.below(candidates.count)]
            var list = registrations[observer][object][key]
            let keyPath = RuntimeConcurrencyTests.keys[key]
            if rng.below(2) == 0 {
                // Without a context: the most recent registration goes.
                people[object].removeObserver(observers[observer], forKeyPath: keyPath)
                list.removeLast()
            } else {
                // With a context: the most recent registration with that context goes.
                let context = list[rng.below(list.count)].context
                people[object].removeObserver(observers[observer], forKeyPath: keyPath, context: context)
                list.remove(at: list.lastIndex { $0.context == context }!)
            }
            registrations[observer][object][key] = list
            live -= 1
            operations.removes += 1
        }

        private func setOne(iteration: Int, people: [Person], locks: [NSLock]) {
            let object = rng.below(people.count)
            let what = rng.below(3)
            locks[object].withLock {
                switch what {
                case 0: people[object].age = iteration
                case 1: people[object].name = "w\(index)-\(iteration)"
                default: people[object].firstName = "f\(index)-\(iteration)"
                }
            }
            operations.sets += 1
        }

        /// Removes everything this worker still has registered, most recent first.
        func removeAll(people: [Person]) {
            for observer in registrations.indices {
                for object in registrations[observer].indices {
                    for key in registrations[observer][object].indices {
                        for _ in registrations[observer][object][key] {
                            people[object].removeObserver(
                                observers[observer], forKeyPath: RuntimeConcurrencyTests.keys[key])
                        }
                        registrations[observer][object][key] = []
                    }
                }
            }
            live = 0
        }
    }

    func testSixteenQueuesAddRemoveAndMutateSharedObjectsWithoutLosingARegistration() {
        let workerCount = 16
        let iterations = 10_000
        let people = (0..<3).map { _ in Person() }
        let workers = (0..<workerCount).map { Worker(index: $0, objectCount: people.count) }
        let baseline = RuntimeMonitor.liveObservanceCount

        race(workers, iterations: iterations, on: people)

        // Every operation kind really happened on every worker.
        for worker in workers {
            XCTAssertGreaterThan(worker.operations.adds, iterations / 10)
            XCTAssertGreaterThan(worker.operations.removes, iterations / 10)
            XCTAssertGreaterThan(worker.operations.sets, iterations / 10)
        }
        let total = assertTheRuntimeCountsWhatTheWorkersRegistered(workers, on: people, baseline: baseline)
        XCTAssertGreaterThan(total, 0, "the run ended with registrations in place")
        assertEveryRegistrationHearsOneChange(workers, on: people, registrationCount: total)

        // Clean up: everything comes off, and nothing is left anywhere.
        assertNoMisuse {
            for worker in workers { worker.removeAll(people: people) }
        }
        for person in people { XCTAssertEqual(person.observationCount, 0) }
        XCTAssertEqual(RuntimeMonitor.liveObservanceCount, baseline)
    }

    /// Runs every worker on its own queue at once, released together, and asserts no misuse reached the runtime.
    private func race(_ workers: [Worker], iterations: Int, on people: [Person]) {
        let locks = people.map { _ in NSLock() }
        RuntimeMonitor.withMisusePolicy(.report) {
            RuntimeMonitor.resetMisuseRecords()
            // Learn every key once before the race: the first registration of a computed key (fullName) asks
            // value(forKey:) whether the key exists, which reads firstName and lastName.
            let warmUp = CountingObserver()
            for key in Self.keys {
                people[0].addObserver(warmUp, forKeyPath: key)
                people[0].removeObserver(warmUp, forKeyPath: key)
            }

            let ready = DispatchGroup()
            let done = DispatchGroup()
            let gate = DispatchSemaphore(value: 0)
            for worker in workers {
                ready.enter()
                done.enter()
                DispatchQueue(label: "kvoguard.tests.runtime-worker-\(worker.index)").async {
                    ready.leave()
                    gate.wait()
                    worker.run(iterations: iterations, people: people, locks: locks)
                    done.leave()
                }
            }
            XCTAssertEqual(ready.wait(timeout: .now() + 60), .success, "every worker reached the gate")
            for _ in workers { gate.signal() }
            XCTAssertEqual(done.wait(timeout: .now() + 300), .success, "every worker finished")

            XCTAssertEqual(RuntimeMonitor.misuseCount, 0, "\(RuntimeMonitor.reportedMisuses.prefix(3))")
            XCTAssertEqual(RuntimeMonitor.reportedMisuses, [])
        }
    }

    /// Asserts each object's and the process's registration counts are the sums of what the workers say they
    /// registered, and returns the workers' total.
    private func assertTheRuntimeCountsWhatTheWorkersRegistered(
        _ workers: [Worker], on people: [Person], baseline: Int
    ) -> Int {
        var total = 0
        for (object, person) in people.enumerated() {
            var perObject = 0
            for (key, keyPath) in Self.keys.enumerated() {
                let expected = workers.reduce(0) { sum, worker in
                    sum + worker.registrations.reduce(0) { $0 + $1[object][key].count }
                }
                XCTAssertEqual(person.observationCount(forKeyPath: keyPath), expected, "object \(object) \(keyPath)")
                perObject += expected
            }
            XCTAssertEqual(person.observationCount, perObject)
            total += perObject
        }
        XCTAssertEqual(RuntimeMonitor.liveObservanceCount - baseline, total)
        return total
    }

    /// Makes one change per object and key, single-threaded, and asserts each observer hears it once per
    /// registration (twice with `.prior`), with each registration's context.
    private func assertEveryRegistrationHearsOneChange(_ workers: [Worker], on people: [Person], registrationCount: Int) {
        let final = assertNoMisuseReturning {
            for worker in workers {
                for observer in worker.observers {
                    observer.reset()
                    observer.recordsContexts = true
                }
            }
            for person in people {
                person.age += 1
                person.name += "!"
                person.firstName += "!"
            }
        }
        XCTAssertEqual(final, [])
        // Collected rather than asserted one by one, so a broken runtime gives one readable failure, not hundreds.
        var mismatches: [String] = []
        var checked = 0
        for worker in workers {
            for (observerIndex, observer) in worker.observers.enumerated() {
                for (object, person) in people.enumerated() {
                    for (key, keyPath) in Self.keys.enumerated() {
                        let registrations = worker.registrations[observerIndex][object][key]
                        let expectedContexts = registrations.flatMap { registration in
                            Array(repeating: registration.context, count: registration.options.contains(.prior) ? 2 : 1)
                        }
                        let heard = observer.contexts(of: person, keyPath: keyPath)
                        checked += expectedContexts.count
                        if observer.count(of: person, keyPath: keyPath) != expectedContexts.count
                            || heard.map(Self.number).sorted() != expectedContexts.map(Self.number).sorted()
                        {
                            mismatches.append(
                                "worker \(worker.index) observer \(observerIndex) object \(object) \(keyPath): "
                                    + "heard \(heard.count) with contexts \(heard.map(Self.number).sorted()), "
                                    + "expected \(expectedContexts.count) with \(expectedContexts.map(Self.number).sorted())")
                        }
                    }
                }
            }
        }
        XCTAssertEqual(mismatches.count, 0, mismatches.prefix(10).joined(separator: "\n"))
        XCTAssertGreaterThanOrEqual(checked, registrationCount, "every registration was checked")
    }

    private static func number(_ context: UnsafeMutableRawPointer?) -> UInt {
        context.map { UInt(bitPattern: $0) } ?? 0
    }

    private func assertNoMisuseReturning(_ body: () -> Void) -> [KVOMisuse] {
        recordingMisuse(body)
    }
}
