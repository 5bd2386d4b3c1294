import GuardCore
import XCTest

/// Keys are told apart by their UTF-8 bytes, as Foundation tells its key strings apart: `caf\u{E9}` (é as one
/// scalar, how the property below is spelled) and `cafe\u{301}` (e and a combining accent) are two keys, although
/// Swift's `String` calls them equal. A spelling the class does not have is an unknown key, however it was asked
/// first, and never borrows or spoils what the other spelling registered, cached or named.
final class KeySpellingTests: XCTestCase {
    final class Café: KVOObject, @unchecked Sendable {
        @Observed var café = 0
    }

    /// Answers both spellings, as two keys with their own values.
    final class BothSpellings: KVOObject, @unchecked Sendable {
        static let composed = "caf\u{E9}"
        static let decomposed = "cafe\u{301}"

        override func value(forKey key: String) -> Any? {
            if key.utf8.elementsEqual(Self.composed.utf8) { return 1 }
            if key.utf8.elementsEqual(Self.decomposed.utf8) { return 2 }
            return super.value(forKey: key)
        }
    }

    private let composed = "caf\u{E9}"
    private let decomposed = "cafe\u{301}"

    func testTheOtherSpellingIsAnUnknownKeyAndDoesNotSpoilTheClass() {
        let model = Café()
        let recorder = Recorder()
        let misuses = recordingMisuse {
            model.addObserver(recorder, forKeyPath: decomposed)
        }
        XCTAssertEqual(misuses.map(\.kind), [.unknownKey])
        XCTAssertEqual(model.observationCount, 0)
        let other = Café()
        whileObserving(other, composed, with: recorder, options: [.new]) {
            other.café = 1
        }
        XCTAssertEqual(recorder.notes, [Note(composed, new: shown(1))])
    }

    func testTheGuardRefusesTheOtherSpellingAndStillObservesTheRightOne() {
        let owner = Recorder()
        let sink = CountingSink()
        let controller = ObservationController(observer: owner, diagnosticSink: sink)
        let model = Café()
        let notified = TestBox(0)
        assertNoMisuse {
            XCTAssertEqual(controller.observe(model, keyPath: decomposed) { _, _, _ in }, .invalid(.unobservableKeyPath))
            XCTAssertEqual(
                controller.observe(model, keyPath: composed) { _, _, _ in notified.mutate { $0 += 1 } }, .registered)
            model.café = 1
            XCTAssertEqual(controller.unobserve(model, keyPath: decomposed), .notRegistered)
            XCTAssertEqual(controller.observedKeyPaths(of: model), [composed])
            XCTAssertEqual(controller.unobserve(model, keyPath: composed), .removed)
        }
        XCTAssertEqual(notified.get(), 1)
        XCTAssertEqual(sink.count(of: .invalidArgument), 1)
        XCTAssertEqual(sink.count(of: .removalOfUnregistered), 1)
        XCTAssertEqual(sink.total, 2)
    }

    func testTwoSpellingsAnObjectAnswersAreTwoRegistrationsOfTheGuard() {
        let owner = Recorder()
        let sink = CountingSink()
        let controller = ObservationController(observer: owner, diagnosticSink: sink)
        let model = BothSpellings()
        assertNoMisuse {
            XCTAssertEqual(controller.observe(model, keyPath: composed) { _, _, _ in }, .registered)
            XCTAssertEqual(controller.observe(model, keyPath: decomposed) { _, _, _ in }, .registered)
            XCTAssertEqual(controller.registrationCount, 2)
            XCTAssertEqual(controller.unobserve(model, keyPath: decomposed), .removed)
            XCTAssertTrue(controller.isObserving(model, keyPath: composed))
            XCTAssertFalse(controller.isObserving(model, keyPath: decomposed))
            XCTAssertEqual(controller.unobserve(model, keyPath: decomposed), .alreadyRemoved)
            XCTAssertEqual(controller.unobserve(model, keyPath: composed), .removed)
        }
        XCTAssertEqual(model.observationCount, 0)
        XCTAssertEqual(sink.count(of: .doubleRemoval), 1)
        XCTAssertEqual(sink.total, 1)
    }

    func testManualChangesPairOnlyUnderTheSameSpelling() {
        let model = BothSpellings()
        let misuses = recordingMisuse {
            model.willChangeValue(forKey: composed)
            model.didChangeValue(forKey: decomposed)
            model.didChangeValue(forKey: composed)
        }
        XCTAssertEqual(misuses.map(\.kind), [.unpairedDidChange])
    }

    /// Each spelling its own value (`C` or `D` and a counter), `total` depending on the composed spelling and the
    /// composed spelling on the decomposed one, announced by hand.
    final class Chained: KVOObject, @unchecked Sendable {
        static let composed = "caf\u{E9}"
        static let decomposed = "cafe\u{301}"
        private let counter = TestBox(0)
        var count: Int {
            get { counter.get() }
            set { counter.set(newValue) }
        }

        override func value(forKey key: String) -> Any? {
            if key.utf8.elementsEqual(Self.composed.utf8) { return "C\(count)" }
            if key.utf8.elementsEqual(Self.decomposed.utf8) { return "D\(count)" }
            if key == "total" { return count }
            return super.value(forKey: key)
        }

        override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
            if key == "total" { return [composed] }
            if key.utf8.elementsEqual(composed.utf8) { return [decomposed] }
            return []
        }
    }

    func testADependencyOnTheOtherSpellingIsFollowedLikeAnyOther() {
        let model = Chained()
        let recorder = Recorder()
        let misuses = recordingMisuse {
            whileObserving(model, "total", with: recorder) {
                model.willChangeValue(forKey: decomposed)
                model.count = 1
                model.didChangeValue(forKey: decomposed)
            }
        }
        XCTAssertEqual(misuses, [])
        XCTAssertEqual(recorder.received.map(\.keyPath), ["total"])
    }

    func testAKeyPathAnnouncedByTheOtherSpellingReadsItsOwnValues() {
        let model = Chained()
        let recorder = Recorder()
        let misuses = recordingMisuse {
            whileObserving(model, composed, with: recorder, options: [.old, .new]) {
                model.willChangeValue(forKey: decomposed)
                model.count = 1
                model.didChangeValue(forKey: decomposed)
            }
        }
        XCTAssertEqual(misuses, [])
        XCTAssertEqual(recorder.changes.map { "\($0.oldValue ?? "nil") -> \($0.newValue ?? "nil")" }, ["C0 -> C1"])
    }

    /// Both spellings depend on `count`, each with its own value.
    final class BothFollowCount: KVOObject, @unchecked Sendable {
        @Observed var count = 0

        override func value(forKey key: String) -> Any? {
            if key.utf8.elementsEqual(Chained.composed.utf8) { return "C\(count)" }
            if key.utf8.elementsEqual(Chained.decomposed.utf8) { return "D\(count)" }
            return super.value(forKey: key)
        }

        override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
            key.utf8.elementsEqual(Chained.composed.utf8) || key.utf8.elementsEqual(Chained.decomposed.utf8)
                ? ["count"] : []
        }
    }

    func testARegistrationMadeDuringAChangeNeverGetsTheOtherSpellingsOldValue() {
        let model = BothFollowCount()
        let owner = Recorder()
        let early = ObservationController(observer: owner)
        let late = ObservationController(observer: owner)
        let lateChanges = TestBox<[String]>([])
        let decomposed = decomposed
        assertNoMisuse {
            early.observe(model, keyPath: composed, options: [.old, .prior]) { _, model, change in
                guard change.isPrior else { return }
                late.observe(model, keyPath: decomposed, options: [.old, .new]) { _, _, change in
                    lateChanges.mutate { $0.append("\(change.oldValue ?? "absent") -> \(change.newValue ?? "absent")") }
                }
            }
            model.count = 1
            early.unobserveAll()
            late.unobserveAll()
        }
        // The decomposed spelling was not observed when the change began, so no old value of its own was read: a
        // registration made during the change hears it without an old value, never with the composed spelling's.
        XCTAssertEqual(lateChanges.get(), ["absent -> D1"])
    }

    func testTheRuntimeListsBothSpellingsAmongItsObservedKeyPaths() {
        let model = BothSpellings()
        let recorder = Recorder()
        assertNoMisuse {
            model.addObserver(recorder, forKeyPath: composed)
            model.addObserver(recorder, forKeyPath: decomposed)
            // Both, in the order of their bytes (`e` before the first byte of `é`).
            XCTAssertEqual(model.observedKeyPaths.map { Array($0.utf8) }, [Array(decomposed.utf8), Array(composed.utf8)])
            model.removeObserver(recorder, forKeyPath: composed)
            model.removeObserver(recorder, forKeyPath: decomposed)
        }
    }
}
