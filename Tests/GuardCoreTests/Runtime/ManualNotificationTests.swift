import Foundation
import GuardCore
import XCTest

/// `willChangeValue(forKey:)` / `didChangeValue(forKey:)` and opting out of automatic notification.
final class ManualNotificationTests: XCTestCase {
    func testAutomaticNotificationIsOnByDefaultAndOffWhereTheClassSaysSo() {
        XCTAssertTrue(Person.automaticallyNotifiesObservers(forKey: "age"))
        XCTAssertFalse(Person.automaticallyNotifiesObservers(forKey: "score"))
        XCTAssertTrue(KVOObject.automaticallyNotifiesObservers(forKey: "score"))
        XCTAssertFalse(ManualModel.automaticallyNotifiesObservers(forKey: "level"))
    }

    func testSettingAnOptedOutKeyNotifiesNobody() {
        let person = Person()
        let recorder = Recorder()
        whileObserving(person, "score", with: recorder, options: [.prior, .old, .new]) {
            person.score = 5
            person.score = 6
        }
        XCTAssertEqual(recorder.notes, [])
        XCTAssertEqual(person.score, 6, "the value is stored all the same")
    }

    func testWillAndDidChangeAnnounceAnOptedOutKeyOnceWithOldAndNew() {
        let person = Person()
        let recorder = Recorder()
        let countAtWill = TestBox(-1)
        whileObserving(person, "score", with: recorder, options: [.old, .new], context: Contexts.third) {
            person.willChangeValue(forKey: "score")
            countAtWill.set(recorder.count)
            person.score = 5
            person.didChangeValue(forKey: "score")
        }
        XCTAssertEqual(countAtWill.get(), 0, "without .prior nothing is sent at will time")
        XCTAssertEqual(recorder.notes, [Note("score", old: shown(0), new: shown(5), context: Contexts.third)])
        assertAllFrom(person, recorder)
    }

    func testPriorIsSentAtWillTimeAndTheChangeAtDidTime() {
        let person = Person()
        let recorder = Recorder()
        let afterWill = TestBox<[Note]>([])
        whileObserving(person, "score", with: recorder, options: [.prior, .old, .new]) {
            person.willChangeValue(forKey: "score")
            afterWill.set(recorder.notes)
            person.score = 9
            person.didChangeValue(forKey: "score")
        }
        XCTAssertEqual(afterWill.get(), [Note.prior("score", old: shown(0))])
        XCTAssertEqual(recorder.notes, [Note.prior("score", old: shown(0)), Note("score", old: shown(0), new: shown(9))])
    }

    func testNestedWillAndDidForTwoKeysSendPriorsAtWillTimeAndChangesAtDidTime() {
        let model = ManualModel()
        let recorder = Recorder()
        let afterBothWills = TestBox<[Note]>([])
        let afterInnerDid = TestBox<[Note]>([])
        assertNoMisuse {
            model.addObserver(recorder, forKeyPath: "level", options: [.prior, .old, .new])
            model.addObserver(recorder, forKeyPath: "label", options: [.prior, .old, .new])
            model.willChangeValue(forKey: "level")
            model.willChangeValue(forKey: "label")
            afterBothWills.set(recorder.notes)
            model.level = 3
            model.label = "high"
            model.didChangeValue(forKey: "label")
            afterInnerDid.set(recorder.notes)
            model.didChangeValue(forKey: "level")
            model.removeObserver(recorder, forKeyPath: "level")
            model.removeObserver(recorder, forKeyPath: "label")
        }
        let priors = [Note.prior("level", old: shown(0)), Note.prior("label", old: shown(""))]
        XCTAssertEqual(afterBothWills.get(), priors)
        XCTAssertEqual(afterInnerDid.get(), priors + [Note("label", old: shown(""), new: shown("high"))])
        XCTAssertEqual(
            recorder.notes,
            priors + [Note("label", old: shown(""), new: shown("high")), Note("level", old: shown(0), new: shown(3))])
    }

    func testOverlappingPairsMayEndInTheOrderTheyBegan() {
        let model = ManualModel()
        let recorder = Recorder()
        assertNoMisuse {
            model.addObserver(recorder, forKeyPath: "level", options: [.old, .new])
            model.addObserver(recorder, forKeyPath: "label", options: [.old, .new])
            model.willChangeValue(forKey: "level")
            model.willChangeValue(forKey: "label")
            model.level = 1
            model.didChangeValue(forKey: "level")
            model.label = "one"
            model.didChangeValue(forKey: "label")
            model.removeObserver(recorder, forKeyPath: "level")
            model.removeObserver(recorder, forKeyPath: "label")
        }
        XCTAssertEqual(
            recorder.notes, [Note("level", old: shown(0), new: shown(1)), Note("label", old: shown(""), new: shown("one"))])
    }

    func testNestedPairsForTheSameKeyPairInnermostFirst() {
        let model = ManualModel()
        let recorder = Recorder()
        whileObserving(model, "level", with: recorder, options: [.old, .new]) {
            model.willChangeValue(forKey: "level")
            model.level = 1
            model.willChangeValue(forKey: "level")
            model.level = 2
            model.didChangeValue(forKey: "level")
            model.didChangeValue(forKey: "level")
        }
        XCTAssertEqual(
            recorder.notes, [Note("level", old: shown(1), new: shown(2)), Note("level", old: shown(0), new: shown(2))])
    }

    func testWillAndDidWithNobodyObservingCostNothingAndStayPaired() {
        let model = ManualModel()
        assertNoMisuse {
            model.willChangeValue(forKey: "level")
            model.level = 4
            model.didChangeValue(forKey: "level")
        }
        XCTAssertEqual(model.level, 4)
    }

    func testAnObserverAddedBetweenWillAndDidIsNotPartOfThatChange() {
        let model = ManualModel()
        let early = Recorder()
        let late = Recorder()
        assertNoMisuse {
            model.addObserver(early, forKeyPath: "level", options: [.new])
            model.willChangeValue(forKey: "level")
            model.addObserver(late, forKeyPath: "level", options: [.new])
            model.level = 2
            model.didChangeValue(forKey: "level")
            model.removeObserver(early, forKeyPath: "level")
            model.removeObserver(late, forKeyPath: "level")
        }
        XCTAssertEqual(early.notes, [Note("level", new: shown(2))])
        XCTAssertEqual(late.notes, [])
    }

    // MARK: Misuse

    func testDidChangeWithoutWillChangeIsUnpairedDidChange() throws {
        let model = ManualModel()
        let recorder = Recorder()
        let misuses = recordingMisuse {
            model.addObserver(recorder, forKeyPath: "level", options: [.new])
            model.didChangeValue(forKey: "level")
            model.removeObserver(recorder, forKeyPath: "level")
        }
        XCTAssertEqual(misuses, [Expected.unpairedDidChange(object: model, key: "level")])
        let misuse = try XCTUnwrap(misuses.first)
        XCTAssertEqual(
            misuse.terminationMessage,
            "*** Terminating app due to uncaught exception 'NSInternalInconsistencyException', reason: '"
                + misuse.message + "'")
        XCTAssertEqual(recorder.notes, [], "an unpaired didChange notifies nobody")
    }

    func testAnExtraDidChangeAfterAPairIsUnpaired() {
        let model = ManualModel()
        let recorder = Recorder()
        let misuses = recordingMisuse {
            model.addObserver(recorder, forKeyPath: "label", options: [.new])
            model.willChangeValue(forKey: "label")
            model.label = "x"
            model.didChangeValue(forKey: "label")
            model.didChangeValue(forKey: "label")
            model.removeObserver(recorder, forKeyPath: "label")
        }
        XCTAssertEqual(misuses, [Expected.unpairedDidChange(object: model, key: "label")])
        XCTAssertEqual(recorder.notes, [Note("label", new: shown("x"))])
    }

    func testDidChangeForAnotherKeyOrObjectDoesNotPair() {
        let model = ManualModel()
        let other = ManualModel()
        let misuses = recordingMisuse {
            model.willChangeValue(forKey: "level")
            model.didChangeValue(forKey: "label")
            other.didChangeValue(forKey: "level")
            model.didChangeValue(forKey: "level")
        }
        XCTAssertEqual(
            misuses,
            [
                Expected.unpairedDidChange(object: model, key: "label"),
                Expected.unpairedDidChange(object: other, key: "level"),
            ])
    }

    func testDidChangeOnAnotherThreadDoesNotPairWithThisThreadsWillChange() {
        let model = ManualModel()
        let recorder = Recorder()
        let misuses = recordingMisuse {
            model.addObserver(recorder, forKeyPath: "level", options: [.new])
            model.willChangeValue(forKey: "level")
            let (threadDescription, _) = onAnotherThread { () -> String in
                model.didChangeValue(forKey: "level")
                return RuntimeMonitor.reportedMisuses.last?.thread ?? "none"
            }
            XCTAssertNotEqual(threadDescription, "main")
            XCTAssertTrue(threadDescription.hasPrefix("thread "), threadDescription)
            XCTAssertEqual(recorder.notes, [])
            // The will of this thread is still pending and pairs here.
            model.level = 8
            model.didChangeValue(forKey: "level")
            model.removeObserver(recorder, forKeyPath: "level")
        }
        XCTAssertEqual(misuses.map(\.kind), [.unpairedDidChange])
        XCTAssertEqual(misuses.first?.message, Expected.unpairedDidChange(object: model, key: "level").message)
        XCTAssertEqual(recorder.notes, [Note("level", new: shown(8))])
    }
}
