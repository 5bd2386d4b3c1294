import Foundation
import GuardCore
import XCTest

/// The guard's `.initial` promise under a storm: observes with `.initial` race sets of the same property from many
/// more queues than the machine has cores, released together from a barrier, trial after trial. Every handler hears
/// its initial notification before any change, and once every observe and every set has returned, the last value each
/// handler heard is the property's value. (Foundation, and GuardCore's runtime on its own, deliver a racing change
/// whenever it comes: before the initial notification, which then shows an older value.)
final class GuardInitialFirstRaceTests: XCTestCase {
    private static let trials = 40
    private static let setsPerSetter = 8

    func testRacingSetsNeverReachAHandlerBeforeItsInitialAndItEndsOnTheCurrentValue() {
        let queuesPerSide = max(16, 4 * ProcessInfo.processInfo.activeProcessorCount)
        var problems: [String] = []
        var heldBack = 0
        var registrations = 0
        withDeadlockWatchdog(seconds: 120, "racing observes and sets") {
            assertNoMisuse {
                for trial in 0..<Self.trials {
                    let outcome = runTrial(trial, observers: queuesPerSide, setters: queuesPerSide)
                    problems += outcome.problems
                    heldBack += outcome.heldBack
                    registrations += outcome.registrations
                }
            }
        }
        XCTAssertEqual(registrations, Self.trials * queuesPerSide)
        XCTAssertEqual(problems, [], "\(problems.count) of \(registrations) registrations")
        // The storm did race: some changes reached a registration before its initial notification and waited.
        XCTAssertGreaterThan(heldBack, 0, "no change ever raced an initial notification")
    }

    private struct TrialOutcome {
        var problems: [String] = []
        /// Changes delivered on the observing thread (held back until the initial notification).
        var heldBack = 0
        var registrations = 0
    }

    /// One trial: `observers` queues each observe the property through a controller of their own while `setters`
    /// queues each set it several times (ordered by the property's own setter lock), all released at once.
    private func runTrial(_ trial: Int, observers: Int, setters: Int) -> TrialOutcome {
        let thermostat = Thermostat()
        let owners = (0..<observers).map { _ in GuardTestObserver() }
        let controllers = owners.map { ObservationController(observer: $0, diagnosticSink: CountingSink()) }
        let logs = (0..<observers).map { _ in DeliveryLog() }
        let results = LockedBox<[ObserveResult]>([])
        let gate = DispatchGroup()
        gate.enter()
        let done = DispatchGroup()
        for index in 0..<observers {
            DispatchQueue(label: "initial-first.observer.\(index)").async(group: done) {
                gate.wait()
                let log = logs[index]
                log.observingThread = Thread.current
                let result = controllers[index].observe(
                    thermostat, keyPath: "reading", options: [.initial, .new, .old]
                ) { _, _, change in log.record(change) }
                results.mutate { $0.append(result) }
            }
        }
        for index in 0..<setters {
            DispatchQueue(label: "initial-first.setter.\(index)").async(group: done) {
                gate.wait()
                for step in 1...Self.setsPerSetter {
                    thermostat.set((trial * 1_000 + index) * 100 + step)
                }
            }
        }
        gate.leave()
        done.wait()
        var outcome = TrialOutcome()
        outcome.registrations = results.value.filter { $0 == .registered }.count
        let current = thermostat.reading
        for (index, log) in logs.enumerated() {
            let entries = log.entries
            outcome.heldBack += entries.dropFirst().filter { $0.onObservingThread }.count
            guard let first = entries.first, first.isInitial else {
                outcome.problems.append("trial \(trial), observer \(index): heard \(entries.prefix(2)) first")
                continue
            }
            if entries.dropFirst().contains(where: \.isInitial) {
                outcome.problems.append("trial \(trial), observer \(index): more than one initial notification")
            }
            if entries.last?.value != current {
                outcome.problems.append(
                    "trial \(trial), observer \(index): ended on \(entries.last?.value ?? -1), the property is \(current)")
            }
        }
        withExtendedLifetime((owners, controllers)) {}
        return outcome
    }
}

/// What one registration's handler heard, in order: whether each notification was the initial one (the only one
/// without an old value), its new value, and whether it ran on the thread that observed.
final class DeliveryLog: @unchecked Sendable {
    struct Entry: CustomStringConvertible {
        let isInitial: Bool
        let value: Int
        let onObservingThread: Bool

        var description: String { isInitial ? "initial(\(value))" : "change(\(value))" }
    }

    private let lock = NSLock()
    private var recorded: [Entry] = []
    private var thread: Thread?

    /// The thread that called `observe` (set before it does).
    var observingThread: Thread? {
        get { lock.withLock { thread } }
        set { lock.withLock { thread = newValue } }
    }

    func record(_ change: KeyValueChange) {
        let entry = Entry(
            isInitial: change.oldValue == nil, value: change.newValue(as: Int.self) ?? -1,
            onObservingThread: Thread.current === observingThread)
        lock.withLock { recorded.append(entry) }
    }

    var entries: [Entry] { lock.withLock { recorded } }
}

/// A property with its own lock, announced by hand, the way a type set from several threads writes one: a read takes
/// the storage lock; a set holds a setter lock for its whole course (so sets are ordered among themselves) and
/// announces around a locked store, without the storage lock while it announces.
final class Thermostat: KVOObject, @unchecked Sendable {
    private let storage = NSLock()
    private let setter = NSLock()
    private var stored = 0

    /// The current reading.
    var reading: Int { storage.withLock { stored } }

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
