import Foundation
import GuardCore
import XCTest

/// `observerDeallocated` is reported exactly once per registration that drops a notification for its gone observer,
/// in whichever order a delivery meets the observer's release and the teardown of the controller it owns (the
/// FBKVOController shape): before the teardown retired the registration, or after it, while the runtime still
/// delivers to it.
final class ObserverGoneReportCountTests: XCTestCase {
    private static let keys = ["k0", "k1", "k2", "k3"]

    override func tearDown() {
        SchedulePoints.uninstall()
        super.tearDown()
    }

    /// Changes that reach the registrations between the teardown's retirement and its unregistration are dropped
    /// for the gone observer: one report per registration.
    func testANotificationReachingARegistrationTheGoneObserversTeardownRetiredIsReported() {
        let object = FourKeys()
        let sink = CountingSink()
        let handlerRuns = CallCounter()
        var observer: OwningObserver? = OwningObserver()
        observe(object, by: observer!, sink: sink, handlerRuns: handlerRuns)
        let teardown = observer!.teardown
        let changedInWindow = Once()
        SchedulePoints.install(atPoints: { point in
            guard point == .guardBeforeUnregister, teardown.started, changedInWindow.claim() else { return }
            for key in Self.keys { object.set(key, 7) }
        })
        observer = nil
        SchedulePoints.uninstall()
        XCTAssertTrue(changedInWindow.claimed, "the teardown unregistered nothing")
        for key in Self.keys { object.set(key, 8) }
        XCTAssertEqual(handlerRuns.total, 0)
        XCTAssertEqual(reportsByKeyPath(sink), Dictionary(uniqueKeysWithValues: Self.keys.map { ($0, 1) }))
        XCTAssertEqual(sink.total, 4)
        XCTAssertEqual(object.observationCount, 0)
    }

    /// A registration removed while its observer lived reports nothing for a notification still reaching it, even
    /// if the observer is gone by then.
    func testARegistrationRemovedWhileItsObserverLivedReportsNothing() {
        let object = FourKeys()
        let sink = CountingSink()
        let handlerRuns = CallCounter()
        let held = Held(OwningObserver())
        let controller = observe(object, by: held.observer!, sink: sink, handlerRuns: handlerRuns)
        held.observer!.controller = nil
        weak let gone = held.observer
        let changedInWindow = Once()
        SchedulePoints.install(atPoints: { point in
            guard point == .guardBeforeUnregister, changedInWindow.claim() else { return }
            held.observer = nil
            for key in Self.keys { object.set(key, 7) }
        })
        controller.unobserveAll()
        SchedulePoints.uninstall()
        XCTAssertTrue(changedInWindow.claimed)
        XCTAssertNil(gone, "the observer was gone when the notifications reached the removed registrations")
        XCTAssertEqual(handlerRuns.total, 0)
        XCTAssertEqual(sink.total, 0, "\(sink.events)")
    }

    /// Racing workers behind a barrier, more queues than cores, storm four keys while the observer that owns the
    /// controller is released. Once its teardown has retired the registrations, every key is changed again before
    /// the teardown goes on (so every registration surely drops a notification), then 1,000 more times per key
    /// while the unregistration and the release race them. Each registration reports exactly once, every trial.
    func testAStormRacingTheObserversReleaseReportsExactlyOncePerRegistration() {
        var wrong: [String] = []
        for trial in 0..<12 {
            let counts = runStormTrial()
            if counts != Dictionary(uniqueKeysWithValues: Self.keys.map { ($0, 1) }) {
                wrong.append("trial \(trial): \(counts.sorted { $0.key < $1.key })")
            }
        }
        XCTAssertEqual(wrong, [], "every registration dropped notifications for its gone observer")
    }

    private func runStormTrial() -> [String: Int] {
        let queuesPerKey = 6
        let changesPerQueueAfterRelease = 1_000 / queuesPerKey + 1
        let object = FourKeys()
        let sink = CountingSink()
        let handlerRuns = CallCounter()
        var observer: OwningObserver? = OwningObserver()
        observe(object, by: observer!, sink: sink, handlerRuns: handlerRuns)
        let teardown = observer!.teardown
        let window = ChangeWindow(keys: Self.keys)
        SchedulePoints.install(atPoints: { point in
            guard point == .guardBeforeUnregister, teardown.started else { return }
            window.openAndWaitForAChangeOfEveryKey()
        })
        let workers = Self.keys.count * queuesPerKey
        let barrier = Barrier(parties: workers + 1)
        let group = DispatchGroup()
        for worker in 0..<workers {
            let key = Self.keys[worker % Self.keys.count]
            DispatchQueue(label: "storm-\(worker)").async(group: group) {
                barrier.arriveAndWait()
                var value = 0
                while !teardown.releaseBegan {
                    object.set(key, value)
                    value += 1
                }
                guard window.waitUntilOpen() else { return }
                for _ in 0..<changesPerQueueAfterRelease {
                    object.set(key, value)
                    value += 1
                    window.noteChange(of: key)
                }
            }
        }
        barrier.arriveAndWait()
        usleep(500)
        teardown.beginRelease()
        observer = nil
        group.wait()
        SchedulePoints.uninstall()
        XCTAssertFalse(window.timedOut, "the teardown never saw a change of every key")
        XCTAssertEqual(object.observationCount, 0)
        return reportsByKeyPath(sink)
    }

    @discardableResult
    private func observe(
        _ object: FourKeys, by observer: OwningObserver, sink: CountingSink, handlerRuns: CallCounter
    ) -> ObservationController<OwningObserver> {
        let controller = ObservationController(observer: observer, diagnosticSink: sink)
        observer.controller = controller
        for key in Self.keys {
            let result = controller.observe(object, keyPath: key, options: [.new]) { observer, _, _ in
                handlerRuns.add()
                observer.touch()
            }
            XCTAssertEqual(result, .registered)
        }
        return controller
    }

    private func reportsByKeyPath(_ sink: CountingSink) -> [String: Int] {
        var counts: [String: Int] = [:]
        for event in sink.events where event.kind == .observerDeallocated {
            counts[event.keyPath ?? "?", default: 0] += 1
        }
        return counts
    }
}

/// Four keys whose values live behind a lock and are announced by hand, so that queues may set one key at once
/// without a data race (an `@Observed` property, like any Swift property, must be set by one thread at a time).
private final class FourKeys: KVOObject, @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Int] = [:]

    override func value(forKey key: String) -> Any? {
        guard ["k0", "k1", "k2", "k3"].contains(key) else { return super.value(forKey: key) }
        return lock.withLock { values[key, default: 0] }
    }

    func set(_ key: String, _ value: Int) {
        willChangeValue(forKey: key)
        lock.withLock { values[key] = value }
        didChangeValue(forKey: key)
    }
}

/// An observer that owns its controller: its release tears the controller down, from its deinit.
private final class OwningObserver: @unchecked Sendable {
    let teardown = Teardown()
    private let lock = NSLock()
    private var storedController: ObservationController<OwningObserver>?
    private var touches = 0

    var controller: ObservationController<OwningObserver>? {
        get { lock.withLock { storedController } }
        set {
            let old = lock.withLock { () -> ObservationController<OwningObserver>? in
                defer { storedController = newValue }
                return storedController
            }
            withExtendedLifetime(old) {}
        }
    }

    func touch() { lock.withLock { touches += 1 } }

    deinit {
        teardown.start()
        controller = nil
    }
}

/// When the observer's release began and when its deinit began tearing its controller down.
private final class Teardown: @unchecked Sendable {
    private let lock = NSLock()
    private var releaseBeganFlag = false
    private var startedFlag = false

    var releaseBegan: Bool { lock.withLock { releaseBeganFlag } }
    var started: Bool { lock.withLock { startedFlag } }
    func beginRelease() { lock.withLock { releaseBeganFlag = true } }
    func start() { lock.withLock { startedFlag = true } }
}

/// Opened by the teardown between retiring the registrations and unregistering them; holds the teardown there until
/// every key was changed once after it opened.
private final class ChangeWindow: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false
    private var unchanged: Set<String>
    private(set) var timedOut = false

    init(keys: [String]) { unchanged = Set(keys) }

    func openAndWaitForAChangeOfEveryKey() {
        condition.lock()
        defer { condition.unlock() }
        guard !isOpen else { return }
        isOpen = true
        condition.broadcast()
        let deadline = Date().addingTimeInterval(30)
        while !unchanged.isEmpty {
            if !condition.wait(until: deadline) {
                timedOut = true
                return
            }
        }
    }

    /// Waits until the window opens; `false` if it never does.
    func waitUntilOpen() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(30)
        while !isOpen {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }

    func noteChange(of key: String) {
        condition.lock()
        defer { condition.unlock() }
        if unchanged.remove(key) != nil, unchanged.isEmpty { condition.broadcast() }
    }
}

/// True for the first caller of ``claim()`` only.
private final class Once: @unchecked Sendable {
    private let lock = NSLock()
    private var taken = false
    func claim() -> Bool { lock.withLock { defer { taken = true }; return !taken } }
    var claimed: Bool { lock.withLock { taken } }
}

/// Holds an observer until a test lets it go.
private final class Held: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: OwningObserver?
    init(_ observer: OwningObserver) { stored = observer }
    var observer: OwningObserver? {
        get { lock.withLock { stored } }
        set {
            let old = lock.withLock { () -> OwningObserver? in
                defer { stored = newValue }
                return stored
            }
            withExtendedLifetime(old) {}
        }
    }
}

private final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var total: Int { lock.withLock { count } }
}

/// Releases all parties at once.
private final class Barrier: @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting: Int

    init(parties: Int) { waiting = parties }

    func arriveAndWait() {
        condition.lock()
        waiting -= 1
        if waiting == 0 { condition.broadcast() }
        while waiting > 0 { condition.wait() }
        condition.unlock()
    }
}
