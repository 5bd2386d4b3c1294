import Foundation
import GuardCore
import XCTest

/// A change already under way when a guard registration is made, which stores its value after the registration read
/// its initial value, still reaches it, so the handler never ends on the value from before: also when nobody observed
/// the key when the change began, and when the change cannot say what the old value was (then it comes without one).
final class GuardChangeUnderWayTests: XCTestCase {
    /// A change announced by hand that began with nobody observing (`willChangeValue` found no one to notify): an
    /// observe made before its store reads the old value, and the change then reaches it, without an old value (none
    /// was read when it began), with a prior notification first if it asked for one.
    func testAManualChangeBegunWithNobodyObservingReachesARegistrationMadeBeforeItsStore() {
        for options: KeyValueObservingOptions in [[.initial, .new, .old], [.initial, .new, .old, .prior]] {
            let observer = GuardTestObserver()
            let (sink, controller) = makeController(for: observer)
            let person = Person()
            let log = HandlerLog()
            assertNoMisuse {
                person.willChangeValue(forKey: "score")
                XCTAssertEqual(
                    controller.observe(person, keyPath: "score", options: options, handler: log.recording("h")),
                    .registered)
                person.score = 5
                person.didChangeValue(forKey: "score")
            }
            var expected = [expectedCall("h", observer: observer, object: person, keyPath: "score", new: 0)]
            if options.contains(.prior) {
                expected.append(expectedCall("h", observer: observer, object: person, keyPath: "score", prior: true))
            }
            expected.append(expectedCall("h", observer: observer, object: person, keyPath: "score", new: 5))
            XCTAssertEqual(log.all, expected, "\(options)")
            XCTAssertEqual(sink.records, [])
        }
    }

    /// A set mutation announced by hand that began with nobody observing: what it added or removed was never worked
    /// out (the set was not read when it began), so a registration made before its store hears the set's new value,
    /// as a setting.
    func testASetMutationBegunWithNobodyObservingReachesARegistrationAsASetting() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let model = Tagged()
        let log = HandlerLog()
        assertNoMisuse {
            model.willChangeValue(forKey: "tags", withSetMutation: .union, using: ["b"])
            XCTAssertEqual(
                controller.observe(model, keyPath: "tags", options: [.initial, .new, .old], handler: log.recording("h")),
                .registered)
            model.tags.insert("b")
            model.didChangeValue(forKey: "tags", withSetMutation: .union, using: ["b"])
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("h", observer: observer, object: model, keyPath: "tags", new: .value(Set<String>())),
                expectedCall("h", observer: observer, object: model, keyPath: "tags", new: .value(Set(["b"]))),
            ])
        XCTAssertEqual(sink.records, [])
    }

    /// The same for a change that began while someone else observed the key: the registration that joins gets the
    /// changed key's own old value, which the change kept.
    func testAManualChangeUnderWayGivesAJoiningRegistrationItsOldValue() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let otherObserver = GuardTestObserver()
        let other = makeController(for: otherObserver).1
        let person = Person()
        let log = HandlerLog()
        assertNoMisuse {
            XCTAssertEqual(other.observe(person, keyPath: "score", options: [.new]) { _, _, _ in }, .registered)
            person.willChangeValue(forKey: "score")
            controller.observe(person, keyPath: "score", options: [.initial, .new, .old], handler: log.recording("h"))
            person.score = 5
            person.didChangeValue(forKey: "score")
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("h", observer: observer, object: person, keyPath: "score", new: 0),
                expectedCall("h", observer: observer, object: person, keyPath: "score", old: 0, new: 5),
            ])
        XCTAssertEqual(sink.records, [])
        withExtendedLifetime(otherObserver) {}
    }

    /// A dependent key observed (with `.old`) from inside the prior notification of a change of a key it depends on:
    /// nobody observed the dependent key when the change began, so its old value was never read. The change still
    /// reaches the new registration, without an old value, and its handler ends on the current value.
    func testADependentKeyJoiningAChangeUnderWayHearsItWithoutAnOldValue() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let triggerObserver = GuardTestObserver()
        let trigger = makeController(for: triggerObserver).1
        let person = Person()
        let log = HandlerLog()
        let joined = LockedBox(false)
        assertNoMisuse {
            let triggered = trigger.observe(person, keyPath: "firstName", options: [.prior]) { _, object, change in
                guard change.isPrior, !joined.value else { return }
                joined.value = true
                controller.observe(
                    object, keyPath: "fullName", options: [.initial, .new, .old], handler: log.recording("h"))
            }
            XCTAssertEqual(triggered, .registered)
            person.firstName = "Ada"
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("h", observer: observer, object: person, keyPath: "fullName", new: " "),
                expectedCall("h", observer: observer, object: person, keyPath: "fullName", new: "Ada "),
            ])
        XCTAssertEqual(person.fullName, "Ada ")
        XCTAssertEqual(sink.records, [])
        withExtendedLifetime(triggerObserver) {}
    }

    /// Foundation's behaviour stays for an application's own registration: one added between a `willChangeValue`
    /// that found nobody to notify and its `didChangeValue` is not part of that change.
    func testAnApplicationsOwnRegistrationDoesNotJoinAChangeUnderWay() {
        let person = Person()
        let observer = Recorder()
        assertNoMisuse {
            person.willChangeValue(forKey: "score")
            person.addObserver(observer, forKeyPath: "score", options: [.new], context: nil)
            person.score = 5
            person.didChangeValue(forKey: "score")
            person.removeObserver(observer, forKeyPath: "score")
        }
        XCTAssertEqual(observer.count, 0)
    }
}

/// A set property whose changes are announced by hand.
final class Tagged: KVOObject, @unchecked Sendable {
    @Observed var tags: Set<String> = []

    override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        key == "tags" ? false : super.automaticallyNotifiesObservers(forKey: key)
    }
}
