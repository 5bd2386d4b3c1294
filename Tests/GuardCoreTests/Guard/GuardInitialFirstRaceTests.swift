import Foundation
import GuardCore
import XCTest

/// The guard's `.initial` promise under a storm: observes with `.initial` race sets of the same property from many
/// more threads than the machine has cores, released together from a barrier, trial after trial. Every handler hears
/// its initial notification before any change (or prior notification), and once every observe and every set has
/// returned, the last value each handler heard is the property's value. (Foundation, and GuardCore's runtime on its
/// own, deliver a racing change whenever it comes: before the initial notification, which then shows an older value.)
final class GuardInitialFirstRaceTests: XCTestCase {
    private static let trials = 20
    /// How many registrations each observer makes in a trial, one after the other (each removed before the next).
    private static let observesPerObserver = 8
    /// How many times each setter sets the property in a trial.
    private static let setsPerSetter = 100

    func testRacingSetsNeverReachAHandlerBeforeItsInitialAndItEndsOnTheCurrentValue() {
        let threadsPerSide = max(16, 4 * ProcessInfo.processInfo.activeProcessorCount)
        var outcome = TrialOutcome()
        withDeadlockWatchdog(seconds: 300, "racing observes and sets") {
            assertNoMisuse {
                for trial in 0..<Self.trials {
                    runTrial(trial, observers: threadsPerSide, setters: threadsPerSide, into: &outcome)
                }
            }
        }
        XCTAssertEqual(outcome.registrations, Self.trials * threadsPerSide * Self.observesPerObserver)
        XCTAssertEqual(outcome.problems, [], "\(outcome.problems.count) of \(outcome.registrations) registrations")
        // The storm did race: changes reached registrations before their initial notification, and waited.
        XCTAssertGreaterThan(outcome.heldBack, 0, "no change ever raced an initial notification")
    }

    private struct TrialOutcome {
        var problems: [String] = []
        /// Changes delivered on the observing thread while `observe` ran (held back until the initial notification).
        var heldBack = 0
        var registrations = 0
    }

    /// One trial: `observers` threads each observe the property several times in a row (each through a controller of
    /// its own, removing the registration before the next) while `setters` threads set it (ordered by the property's
    /// own setter lock), all released from a barrier at once. Every registration must hear its initial notification
    /// first, and the last ones (still registered when everything returned) must end on the property's value.
    private func runTrial(_ trial: Int, observers: Int, setters: Int, into outcome: inout TrialOutcome) {
        let thermostat = Thermostat()
        let owners = (0..<observers).map { _ in GuardTestObserver() }
        let controllers = owners.map { ObservationController(observer: $0, diagnosticSink: CountingSink()) }
        let logs = (0..<observers).map { _ in (0..<Self.observesPerObserver).map { _ in DeliveryLog() } }
        let results = LockedBox<[ObserveResult]>([])
        let gate = DispatchGroup()
        gate.enter()
        let done = DispatchGroup()
        func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
            done.enter()
            let thread = Thread {
                gate.wait()
                body()
                done.leave()
            }
            thread.name = name
            thread.start()
        }
        for index in 0..<observers {
            start("initial-first.observer.\(index)") {
                for (cycle, log) in logs[index].enumerated() {
                    if cycle > 0 { controllers[index].unobserve(thermostat, keyPath: "reading") }
                    log.startObserving()
                    let result = controllers[index].observe(
                        thermostat, keyPath: "reading", options: [.initial, .new, .prior]
                    ) { _, _, change in log.record(change) }
                    log.stopObserving()
                    results.mutate { $0.append(result) }
                }
            }
        }
        for index in 0..<setters {
            start("initial-first.setter.\(index)") {
                for step in 1...Self.setsPerSetter {
                    thermostat.set((trial * 1_000 + index) * 1_000 + step)
                }
            }
        }
        gate.leave()
        done.wait()
        outcome.registrations += results.value.filter { $0 == .registered }.count
        let current = thermostat.reading
        for (index, cycles) in logs.enumerated() {
            for (cycle, log) in cycles.enumerated() {
                let entries = log.entries
                let place = "trial \(trial), observer \(index), registration \(cycle)"
                outcome.heldBack += entries.dropFirst().filter(\.duringObserve).count
                guard entries.first?.kind == .initial, !entries.dropFirst().contains(where: { $0.kind == .initial })
                else {
                    outcome.problems.append("\(place): heard \(entries.prefix(4))")
                    continue
                }
                let last = entries.last { $0.kind != .prior }?.value
                if cycle == Self.observesPerObserver - 1, last != current {
                    outcome.problems.append("\(place): ended on \(last ?? -1), the property is \(current)")
                }
            }
        }
        withExtendedLifetime((owners, controllers)) {}
    }
}

/// What one registration's handler heard, in order: each notification's kind and new value, and whether it ran on
/// the observing thread while `observe` ran there (a change held back until the initial notification). With
/// `.prior`, every change comes right after its prior notification (a registration that joins a change under way gets
/// both at its end), so a notification that follows no prior one is the initial one.
final class DeliveryLog: @unchecked Sendable {
    enum Kind { case initial, prior, change }

    struct Entry: CustomStringConvertible {
        let kind: Kind
        let value: Int
        let duringObserve: Bool

        var description: String { "\(kind)(\(value))" }
    }

    private let lock = NSLock()
    private var recorded: [Entry] = []
    private var observingThread: UInt64?

    /// The calling thread is about to call `observe`.
    func startObserving() {
        let thread = CurrentThread.identifier
        lock.withLock { observingThread = thread }
    }

    /// The calling thread's `observe` returned.
    func stopObserving() {
        lock.withLock { observingThread = nil }
    }

    func record(_ change: KeyValueChange) {
        let thread = CurrentThread.identifier
        lock.withLock {
            let kind: Kind = change.isPrior ? .prior : recorded.last?.kind == .prior ? .change : .initial
            recorded.append(
                Entry(kind: kind, value: change.newValue(as: Int.self) ?? -1, duringObserve: thread == observingThread))
        }
    }

    var entries: [Entry] { lock.withLock { recorded } }
}

/// A property with its own lock, announced by hand, the way a type set from several threads writes one: a read takes
/// the storage lock; a set holds a setter lock for its whole course (so sets are ordered among themselves) and
/// announces around a locked store, without the storage lock while it announces. A read first yields the processor
/// (as a read that takes a while would be preempted): an observe's initial read then lets other threads set the
/// property between the registration's insert and its initial notification, even on a machine with few free cores.
final class Thermostat: KVOObject, @unchecked Sendable {
    private let storage = NSLock()
    private let setter = NSLock()
    private var stored = 0

    /// The current reading.
    var reading: Int {
        sched_yield()
        return storage.withLock { stored }
    }

    /// Sets the reading, announcing the change to observers of `reading`.
    func set(_ value: Int) {
        setter.withLock {
            willChangeValue(forKey: "reading")
            storage.withLock { stored = value }
            didChangeValue(forKey: "reading")
        }
    }

    override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        key == "reading" ? false : super.automaticallyNotifiesObservers(forKey: key)
    }

    override func value(forKey key: String) -> Any? {
        key == "reading" ? reading : super.value(forKey: key)
    }
}
