import Foundation
import GuardCore
import XCTest

/// The order in which the observers of one change hear about it.
///
/// Foundation pushes a pending notification per observance as it sends the prior (will-change) notifications, oldest
/// registration first, and pops them as it sends the change (did-change) notifications, so those go newest first and
/// each observer's will / did pair nests inside those of the observers registered before it (Apple's
/// `NSKeyValueWillChange` / `NSKeyValueDidChange`; reimplementations written against it, such as WinObjC's
/// `NSKVOSupport` and GNUstep's, iterate the observers forward for `willChange` and backward for `didChange`).
final class DeliveryOrderTests: XCTestCase {
    /// Records which observer heard what, across observers.
    final class Journal: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []

        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    final class Named: KeyValueObserver, @unchecked Sendable {
        let name: String
        let journal: Journal
        var onNotify: ((KeyValueChange) -> Void)?

        init(_ name: String, _ journal: Journal) {
            self.name = name
            self.journal = journal
        }

        func observeValue(
            forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
        ) {
            journal.append("\(change.isPrior ? "will" : "did") \(name) \(keyPath)")
            onNotify?(change)
        }
    }

    func testPriorsGoOldestFirstAndChangesNewestFirst() {
        let person = Person()
        let journal = Journal()
        let observers = ["a", "b", "c"].map { Named($0, journal) }
        assertNoMisuse {
            for observer in observers { person.addObserver(observer, forKeyPath: "age", options: [.prior]) }
            person.age = 1
            for observer in observers { person.removeObserver(observer, forKeyPath: "age") }
        }
        XCTAssertEqual(
            journal.all, ["will a age", "will b age", "will c age", "did c age", "did b age", "did a age"])
    }

    func testObserversWithoutPriorsHearTheChangeNewestFirst() {
        let person = Person()
        let journal = Journal()
        let first = Named("first", journal)
        let second = Named("second", journal)
        assertNoMisuse {
            person.addObserver(first, forKeyPath: "name", options: [.new])
            person.addObserver(second, forKeyPath: "name", options: [.old])
            person.name = "Ann"
            person.removeObserver(first, forKeyPath: "name")
            person.removeObserver(second, forKeyPath: "name")
        }
        XCTAssertEqual(journal.all, ["did second name", "did first name"])
    }

    /// Across key paths too, the change notifications are the priors' exact reverse: the dependent key path, whose
    /// priors came after the changed key's, hears about the change first.
    func testChangesAreTheExactReverseOfThePriorsAcrossKeyPaths() {
        let person = Person()
        let journal = Journal()
        let a = Named("a", journal)
        let b = Named("b", journal)
        let c = Named("c", journal)
        assertNoMisuse {
            person.addObserver(a, forKeyPath: "fullName", options: [.prior])
            person.addObserver(b, forKeyPath: "lastName", options: [.prior])
            person.addObserver(c, forKeyPath: "lastName", options: [.prior])
            person.lastName = "Lee"
            person.removeObserver(a, forKeyPath: "fullName")
            person.removeObserver(b, forKeyPath: "lastName")
            person.removeObserver(c, forKeyPath: "lastName")
        }
        let priors = Array(journal.all.prefix(3))
        XCTAssertEqual(priors, ["will b lastName", "will c lastName", "will a fullName"])
        XCTAssertEqual(Array(journal.all.suffix(3)), ["did a fullName", "did c lastName", "did b lastName"])
    }

    /// The newest observer hears the change first, so one that removes an older observer (and lets it go) from its
    /// handler spares that one the change: a removed registration is never notified again (GNUstep's
    /// `removalDuringDelivery` test, written against Foundation, relies on this order).
    func testAnObserverRemovedByANewerOnesHandlerDoesNotHearTheChange() {
        let person = Person()
        let journal = Journal()
        let victim = Named("victim", journal)
        let remover = Named("remover", journal)
        remover.onNotify = { _ in
            if journal.all.filter({ $0 == "did remover age" }).count == 1 {
                person.removeObserver(victim, forKeyPath: "age")
            }
        }
        assertNoMisuse {
            person.addObserver(victim, forKeyPath: "age", options: [.new])
            person.addObserver(remover, forKeyPath: "age", options: [.new])
            person.age = 1
            person.age = 2
            person.removeObserver(remover, forKeyPath: "age")
        }
        XCTAssertEqual(journal.all, ["did remover age", "did remover age"])
    }

    func testTheGuardsHandlersFollowTheSameOrder() {
        let person = Person()
        let journal = Journal()
        let owners = (0..<3).map { _ in Recorder() }
        let controllers = owners.map { ObservationController(observer: $0) }
        assertNoMisuse {
            for (index, controller) in controllers.enumerated() {
                controller.observe(person, keyPath: "age", options: [.prior, .new]) { _, _, change in
                    journal.append("\(change.isPrior ? "will" : "did") \(index)")
                }
            }
            person.age = 5
            for controller in controllers { controller.unobserveAll() }
        }
        XCTAssertEqual(journal.all, ["will 0", "will 1", "will 2", "did 2", "did 1", "did 0"])
    }

    /// A registration the guard makes while a change is under way hears about it (see ``ObservationController``),
    /// prior and change together, before the change notifications of the registrations that were there already: it
    /// is the newest.
    func testAGuardRegistrationMadeDuringAChangeHearsItBeforeTheOlderOnes() {
        let person = Person()
        let journal = Journal()
        let owner = Recorder()
        let controller = ObservationController(observer: owner)
        let late = ObservationController(observer: owner)
        assertNoMisuse {
            controller.observe(person, keyPath: "age", options: [.prior]) { _, object, change in
                journal.append("\(change.isPrior ? "will" : "did") early")
                guard change.isPrior else { return }
                late.observe(person, keyPath: "age", options: [.prior]) { _, _, change in
                    journal.append("\(change.isPrior ? "will" : "did") late")
                }
            }
            person.age = 1
            controller.unobserveAll()
            late.unobserveAll()
        }
        XCTAssertEqual(journal.all, ["will early", "will late", "did late", "did early"])
    }
}
