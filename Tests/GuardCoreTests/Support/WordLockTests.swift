#if os(Linux)
import Dispatch
import Foundation
import GuardCoreAtomics
import XCTest

@testable import GuardCore

/// `gca_lock` (the lock in one word behind GuardCore's locks in Linux release builds, see `LockPrimitive`) excludes:
/// no two threads are ever inside it at once, and what one thread wrote under it the next one reads (ThreadSanitizer
/// sees the plain counter below race if the lock's orderings were wrong); a thread that sleeps waiting for it is woken
/// by the release. Run in every build, since GuardCore itself uses it only in release builds.
final class WordLockTests: XCTestCase {
    /// A lock and what it guards, at a fixed address.
    private final class Guarded: @unchecked Sendable {
        let lock = UnsafeMutablePointer<gca_lock>.allocate(capacity: 1)
        /// Written only under the lock, without atomics.
        var counter = 0
        /// Whether a thread is inside; set and cleared under the lock.
        var inside = false
        /// Overlaps seen (a thread found another inside); read after every thread ended.
        var overlaps = 0

        init() {
            lock.initialize(to: gca_lock())
        }

        deinit {
            precondition(!gca_lock_is_held(lock))
            lock.deinitialize(count: 1)
            lock.deallocate()
        }
    }

    func testNoTwoThreadsAreEverInsideAndEveryIncrementCounts() {
        let guarded = Guarded()
        // More threads than cores, started together, some holding the lock long enough for the others to stop
        // spinning and sleep in the kernel: every path of the lock is taken.
        let threads = 12
        let rounds = 3_000
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for thread in 0..<threads {
            group.enter()
            Thread {
                start.wait()
                for round in 0..<rounds {
                    gca_lock_acquire(guarded.lock)
                    if guarded.inside { guarded.overlaps += 1 }
                    guarded.inside = true
                    guarded.counter += 1
                    if (round + thread) % 500 == 0 { usleep(200) }
                    guarded.inside = false
                    gca_lock_release(guarded.lock)
                }
                group.leave()
            }.start()
        }
        for _ in 0..<threads { start.signal() }
        XCTAssertEqual(group.wait(timeout: .now() + .seconds(120)), .success, "a thread never got the lock")
        gca_lock_acquire(guarded.lock)
        let (counter, overlaps) = (guarded.counter, guarded.overlaps)
        gca_lock_release(guarded.lock)
        XCTAssertEqual(overlaps, 0, "two threads were inside the lock at once")
        XCTAssertEqual(counter, threads * rounds, "an increment made under the lock was lost")
        XCTAssertFalse(gca_lock_is_held(guarded.lock), "the lock is free once every thread released it")
    }

    func testAThreadSleepingOnTheLockIsWokenByTheRelease() {
        let guarded = Guarded()
        gca_lock_acquire(guarded.lock)
        let waiting = DispatchSemaphore(value: 0)
        let acquired = DispatchSemaphore(value: 0)
        Thread {
            waiting.signal()
            gca_lock_acquire(guarded.lock)
            guarded.counter += 1
            gca_lock_release(guarded.lock)
            acquired.signal()
        }.start()
        waiting.wait()
        // Long past its spinning: the waiter sleeps in the kernel now.
        usleep(50_000)
        XCTAssertEqual(acquired.wait(timeout: .now() + .milliseconds(50)), .timedOut, "it got a held lock")
        gca_lock_release(guarded.lock)
        XCTAssertEqual(acquired.wait(timeout: .now() + .seconds(30)), .success, "the release did not wake the waiter")
        gca_lock_acquire(guarded.lock)
        XCTAssertEqual(guarded.counter, 1)
        gca_lock_release(guarded.lock)
    }

    /// A release says whether it woke a waiter, and a scheduler standing in for a sleeping thread (``LockWaiters``)
    /// makes the next release wake one, as the thread would before sleeping; a free lock has no waiter to mark.
    func testAReleaseSaysWhetherItWokeAWaiterAndAStandInWaiterIsWoken() {
        let guarded = Guarded()
        gca_lock_acquire(guarded.lock)
        XCTAssertFalse(gca_lock_release(guarded.lock), "no thread waited, so none was woken")
        XCTAssertFalse(LockWaiters(wordLock: guarded.lock).markWaiting(), "a free lock has no waiter to mark")
        XCTAssertFalse(gca_lock_is_held(guarded.lock), "marking a free lock leaves it free")
        gca_lock_acquire(guarded.lock)
        XCTAssertTrue(LockWaiters(wordLock: guarded.lock).markWaiting())
        XCTAssertTrue(LockWaiters(wordLock: guarded.lock).markWaiting(), "a second waiter finds the mark")
        XCTAssertTrue(gca_lock_is_held(guarded.lock), "marking a held lock keeps it held")
        XCTAssertTrue(gca_lock_release(guarded.lock), "the release of a lock with a waiter wakes one")
        XCTAssertFalse(gca_lock_is_held(guarded.lock))
        XCTAssertFalse(LockWaiters.untracked.markWaiting(), "a lock whose waiters a scheduler cannot see")
    }
}
#endif
