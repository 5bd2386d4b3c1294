import Foundation
import XCTest

@testable import GuardCore

/// A critical section that only reads what its lock guards is announced as read-only, so a fault injector's
/// explorer lets two of them commute; every other section is announced as one that may write.
final class ReadOnlySectionTests: XCTestCase {
    /// Records, for the calling thread, each lock acquire's `readOnly` flag.
    private final class AcquireRecorder: ScheduleHook, @unchecked Sendable {
        private let lock = NSLock()
        private let thread = pthread_self()
        private var flags: [Bool] = []

        var recorded: [Bool] { lock.withLock { flags } }

        func reach(_ point: NamedSchedulePoint, object: ObjectIdentifier) {}
        func access(_ object: ObjectIdentifier, _ word: SharedWord, _ kind: SharedAccess) {}
        func created(_ object: ObjectIdentifier) {}
        func didRelease(_ lock: ObjectIdentifier, wokeWaiter: Bool?) {}
        func willAcquire(_ lock: ObjectIdentifier, waiters: LockWaiters, readOnly: Bool) {
            guard pthread_equal(pthread_self(), thread) != 0 else { return }
            self.lock.withLock { flags.append(readOnly) }
        }
    }

    private static func announcements(_ body: () -> Void) -> [Bool] {
        let recorder = AcquireRecorder()
        SchedulePoints.install(recorder)
        body()
        SchedulePoints.uninstall()
        return recorder.recorded
    }

    func testReadsAreAnnouncedReadOnlyAndUpdatesAreNot() {
        let protected = Protected([1, 2, 3])
        XCTAssertEqual(Self.announcements { _ = protected.read { $0.count } }, [true])
        XCTAssertEqual(Self.announcements { _ = protected.current }, [true])
        XCTAssertEqual(Self.announcements { protected.withValue { $0.append(4) } }, [false])
        XCTAssertEqual(Self.announcements { _ = protected.exchange([]) }, [false])
    }

    /// A cache lookup that finds its entry in the shared copy is a read-only section; the miss that stores an entry is
    /// not.
    func testACacheHitInTheSharedCopyIsReadOnlyAndAMissWrites() {
        let cache = ReadMostlyCache<String, Int>()
        let missing = Self.announcements { _ = cache.value(for: "key") { 1 } }
        XCTAssertEqual(missing, [true, false], "a miss looks (read-only), then stores (writes)")
        let hit = onAnotherThread { Self.announcements { _ = cache.value(for: "key") { 2 } } }
        XCTAssertEqual(hit, [true], "another thread's first lookup finds the entry in the shared copy")
    }


    /// `body`'s result, run on a new thread (whose copy of every cache starts empty).
    private func onAnotherThread(_ body: @escaping @Sendable () -> [Bool]) -> [Bool] {
        final class Box: @unchecked Sendable { var value: [Bool] = [] }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Thread {
            box.value = body()
            done.signal()
        }.start()
        done.wait()
        return box.value
    }
}
