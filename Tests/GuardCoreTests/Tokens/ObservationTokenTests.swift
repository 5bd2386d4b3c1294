import Foundation
import GuardCore
import XCTest

/// `guardedObserve`: the `NSKeyValueObservation`-shaped token API, on GuardCore's runtime.
final class ObservationTokenTests: XCTestCase {
    final class Profile: KVOObject, @unchecked Sendable {
        @Observed var age = 0
        @Observed var name = ""
        var computedAge: Int { age }
    }

    /// Holds a token so a handler can reach (and drop) it.
    final class TokenBox: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: ObservationToken?

        var token: ObservationToken? {
            get { lock.withLock { stored } }
            set {
                let old = lock.withLock { () -> ObservationToken? in
                    defer { stored = newValue }
                    return stored
                }
                withExtendedLifetime(old) {}
            }
        }
    }

    private func ages(_ log: ConformanceLog) -> [ConformanceValue] { log.all.map(\.new) }

    func testTypedChangesWithInitialUntilInvalidated() {
        let profile = Profile()
        profile.age = 30
        let log = ConformanceLog()
        let seen = ConformanceValueBox<[Int]>()
        assertNoMisuse {
            let token = profile.guardedObserve(\.age, options: [.initial, .new]) { profile, change in
                seen.mutate { $0 = ($0 ?? []) + [change.newValue ?? -1] }
                log.record(profile, change.change)
            }
            XCTAssertEqual(token.result, .registered)
            XCTAssertTrue(token.isActive)
            XCTAssertEqual(seen.value, [30], ".initial before guardedObserve returned")
            profile.age = 31
            token.invalidate()
            XCTAssertFalse(token.isActive)
            profile.age = 32
        }
        XCTAssertEqual(seen.value, [30, 31])
        XCTAssertEqual(log.objectIDs, [ObjectIdentifier(profile), ObjectIdentifier(profile)])
        XCTAssertEqual(profile.observationCount, 0)
    }

    func testReleasingTheTokenInvalidatesIt() {
        let profile = Profile()
        let log = ConformanceLog()
        assertNoMisuse {
            var token: ObservationToken? = profile.guardedObserve(keyPath: "name", options: .new) { profile, change in
                log.record(profile, change)
            }
            profile.name = "a"
            XCTAssertEqual(profile.observationCount, 1)
            withExtendedLifetime(token) {}
            token = nil
            profile.name = "b"
        }
        XCTAssertEqual(ages(log), [.string("a")])
        XCTAssertEqual(profile.observationCount, 0)
    }

    func testInvalidateIsIdempotentAndEmitsNothing() {
        let profile = Profile()
        let sink = CountingSink()
        GuardDiagnostics.withSink(sink) {
            assertNoMisuse {
                let token = profile.guardedObserve(\.age) { _, _ in }
                for _ in 0..<3 { token.invalidate() }
                XCTAssertFalse(token.isActive)
            }
        }
        XCTAssertEqual(sink.total, 0)
        XCTAssertEqual(profile.observationCount, 0)
    }

    func testInvalidateInsideItsOwnHandler() {
        let profile = Profile()
        let box = TokenBox()
        let log = ConformanceLog()
        assertNoMisuse {
            box.token = profile.guardedObserve(keyPath: "age", options: .new) { profile, change in
                log.record(profile, change)
                box.token?.invalidate()
                box.token?.invalidate()
            }
            profile.age = 1
            profile.age = 2
        }
        XCTAssertEqual(ages(log), [.int(1)])
        XCTAssertEqual(box.token?.isActive, false)
        XCTAssertEqual(profile.observationCount, 0)
    }

    func testReleasingTheTokenInsideItsOwnHandler() {
        let profile = Profile()
        let box = TokenBox()
        let log = ConformanceLog()
        let released = ConformanceValueBox<ConformanceWeak<ObservationToken>>()
        assertNoMisuse {
            box.token = profile.guardedObserve(keyPath: "age", options: .new) { profile, change in
                log.record(profile, change)
                box.token = nil
            }
            released.set(ConformanceWeak(box.token))
            profile.age = 1
            profile.age = 2
        }
        XCTAssertNil(released.value?.object, "the handler dropped the last reference")
        XCTAssertEqual(ages(log), [.int(1)])
        XCTAssertEqual(profile.observationCount, 0)
    }

    func testConcurrentInvalidateFromManyQueuesWhileChangesArrive() {
        let queues = 24
        for round in 0..<20 {
            let profile = Profile()
            let invalidated = ConformanceFlag()
            let lateDeliveries = ConformanceValueBox<Int>()
            let token = profile.guardedObserve(keyPath: "age", options: .new) { _, _ in
                if invalidated.isSet { lateDeliveries.increment() }
            }
            let barrier = ConformanceBarrier(parties: queues + 1)
            let group = DispatchGroup()
            assertNoMisuse {
                for index in 0..<queues {
                    DispatchQueue(label: "token.invalidate-\(index)").async(group: group) {
                        barrier.arriveAndWait()
                        token.invalidate()
                    }
                }
                DispatchQueue(label: "token.mutate").async(group: group) {
                    barrier.arriveAndWait()
                    for value in 0..<200 { profile.age = value }
                }
                barrier.release()
                XCTAssertEqual(group.wait(timeout: .now() + 30), .success, "round \(round): deadlock")
                invalidated.set()
                profile.age = -1
            }
            XCTAssertFalse(token.isActive)
            XCTAssertEqual(lateDeliveries.value ?? 0, 0, "round \(round): a change made after invalidate returned arrived")
            XCTAssertEqual(profile.observationCount, 0)
        }
    }

    func testTheObjectIsHeldWeaklyAndItsDeinitEndsTheObservationCleanly() {
        var profile: Profile? = Profile()
        let weakProfile = ConformanceWeak(profile)
        let sink = CountingSink()
        var token: ObservationToken?
        GuardDiagnostics.withSink(sink) {
            assertNoMisuse {
                token = profile?.guardedObserve(\.age) { _, _ in }
                XCTAssertEqual(token?.isActive, true)
                profile = nil
            }
        }
        XCTAssertNil(weakProfile.object, "the token does not keep its object alive")
        XCTAssertEqual(token?.isActive, false)
        token?.invalidate()
        XCTAssertEqual(sink.total, 0)
    }

    func testAKeyPathWithoutANameGivesAnInvalidTokenAndOneEvent() {
        let profile = Profile()
        let sink = CountingSink()
        var line = 0
        GuardDiagnostics.withSink(sink) {
            assertNoMisuse {
                line = #line + 1
                let token = profile.guardedObserve(\.computedAge, options: [.initial, .new]) { _, _ in
                    XCTFail("the handler of an invalid token ran")
                }
                XCTAssertEqual(token.result, .invalid(.unobservableKeyPath))
                XCTAssertFalse(token.isActive)
                let unknown = profile.guardedObserve(keyPath: "noSuchKey") { _, _ in }
                XCTAssertEqual(unknown.result, .invalid(.unobservableKeyPath))
            }
        }
        XCTAssertEqual(sink.events.map(\.invalidArgument), [.unobservableKeyPath, .unobservableKeyPath])
        XCTAssertEqual(sink.events.first?.callSite.line, UInt(line), "the call site is the user's line")
        // The key path's description, rendered only for the diagnostic, names it readably (no accessor address).
        XCTAssertEqual(sink.events.first?.keyPath, "\\Profile.<computed: Int>")
        XCTAssertEqual(sink.events.last?.keyPath, "noSuchKey")
        XCTAssertEqual(profile.observationCount, 0)
    }
}
