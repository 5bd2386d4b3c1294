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
}
