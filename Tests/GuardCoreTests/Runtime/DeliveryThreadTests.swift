import Foundation
import GuardCore
import XCTest

/// Notifications are delivered synchronously, on the thread that makes the change.
final class DeliveryThreadTests: XCTestCase {
    func testAChangeOnADispatchQueueIsDeliveredSynchronouslyOnThatQueuesThread() throws {
        let person = Person()
        let recorder = Recorder()
        let callbackThreadID = TestBox<UInt64?>(nil)
        recorder.onNotify = { _, _, _, _ in callbackThreadID.set(CurrentThread.identifier) }
        assertNoMisuse { person.addObserver(recorder, forKeyPath: "age", options: [.old, .new]) }

        let (observed, mutatingThread) = onAnotherThread { () -> (countAfterSet: Int, threadID: UInt64) in
            person.age = 21
            return (recorder.count, CurrentThread.identifier)
        }
        XCTAssertEqual(observed.countAfterSet, 1, "delivered before the setter returned")
        XCTAssertEqual(callbackThreadID.get(), observed.threadID, "delivered on the mutating thread")
        XCTAssertNotEqual(observed.threadID, CurrentThread.identifier, "and that was not the test's thread")
        let received = try XCTUnwrap(recorder.received.first)
        XCTAssertTrue(received.thread === mutatingThread)
        XCTAssertFalse(received.thread === Thread.current)
        XCTAssertEqual(recorder.notes, [Note("age", old: shown(0), new: shown(21))])
        assertNoMisuse { person.removeObserver(recorder, forKeyPath: "age") }
    }

    func testChangesFromSeveralThreadsAreEachDeliveredOnTheirOwnThread() {
        let people = (0..<4).map { _ in Person() }
        let recorder = Recorder()
        assertNoMisuse {
            for person in people { person.addObserver(recorder, forKeyPath: "age", options: [.new]) }
        }
        let threadsByObject = TestBox<[ObjectIdentifier: Thread]>([:])
        let group = DispatchGroup()
        for (index, person) in people.enumerated() {
            DispatchQueue(label: "kvoguard.tests.delivery-\(index)").async(group: group) {
                threadsByObject.mutate { $0[ObjectIdentifier(person)] = Thread.current }
                person.age = index + 1
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        let received = recorder.received
        XCTAssertEqual(received.count, 4)
        let threads = threadsByObject.get()
        for item in received {
            XCTAssertTrue(item.thread === threads[item.object], "delivered on the thread that set it")
            let index = people.firstIndex { ObjectIdentifier($0) == item.object }!
            XCTAssertEqual(Note(item), Note("age", new: shown(index + 1)))
        }
        assertNoMisuse {
            for person in people { person.removeObserver(recorder, forKeyPath: "age") }
        }
    }

    func testManualNotificationIsDeliveredOnTheThreadThatCallsDidChange() throws {
        let model = ManualModel()
        let recorder = Recorder()
        assertNoMisuse { model.addObserver(recorder, forKeyPath: "level", options: [.prior, .new]) }
        let (_, thread) = onAnotherThread {
            model.willChangeValue(forKey: "level")
            model.level = 2
            model.didChangeValue(forKey: "level")
        }
        XCTAssertEqual(recorder.received.count, 2)
        for item in recorder.received { XCTAssertTrue(item.thread === thread) }
        XCTAssertEqual(recorder.notes, [Note.prior("level"), Note("level", new: shown(2))])
        assertNoMisuse { model.removeObserver(recorder, forKeyPath: "level") }
    }

    func testMisuseRecordsTheThreadItHappenedOn() throws {
        let person = Person()
        let recorder = Recorder()
        let (misuses, _) = onAnotherThread { () -> (misuses: [KVOMisuse], thread: String) in
            let misuses = recordingMisuse { person.removeObserver(recorder, forKeyPath: "age") }
            return (misuses, CurrentThread.description)
        }
        let fromMain = recordingMisuse { person.removeObserver(recorder, forKeyPath: "age") }
        XCTAssertEqual(
            misuses.misuses,
            [Expected.notRegistered(observer: recorder, object: person, keyPath: "age", thread: misuses.thread)])
        XCTAssertTrue(misuses.thread.hasPrefix("thread "), misuses.thread)
        XCTAssertEqual(fromMain, [Expected.notRegistered(observer: recorder, object: person, keyPath: "age")])
    }
}
