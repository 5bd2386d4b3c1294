import Foundation
import GuardCore
import XCTest

/// The guard in front of a backend that wraps GuardCore's runtime (forwards every call to a `KVORuntimeBackend`, as
/// an auditing or logging backend does): the guard cannot take its runtime fast path, so the runtime gets the guard's
/// registration as a plain receiver, and must treat it like one.
final class GuardOverAWrappedRuntimeTests: XCTestCase {
    /// A dotted path whose middle object is replaced by one without the leaf key after the guard's check: the
    /// runtime backend registers it all the same (as when the guard calls the runtime directly), so the observe that
    /// concurrent calls could already see reserved is `.registered`, never `.invalid` after the fact. (The backend
    /// used to check the chain again and refuse; the chaos runner then saw a duplicate of an observe that answered
    /// `.invalid`.)
    func testAChainThatBreaksBetweenTheCheckAndTheAddIsRegisteredNotRefused() {
        let observer = GuardTestObserver()
        let root = ChainRoot()
        root.middle = ChainNode()
        let backend = WrappedRuntimeBackend(beforeAdd: { [root] _, _ in root.middle = ChainStranger() })
        let sink = CountingSink()
        let controller = ObservationController(
            observer: observer, retainsObservedObjects: true, backend: backend, diagnosticSink: sink)
        assertNoMisuse {
            XCTAssertEqual(controller.observe(root, keyPath: "middle.leaf", options: .new) { _, _, _ in }, .registered)
            XCTAssertTrue(controller.isObserving(root, keyPath: "middle.leaf"))
            XCTAssertEqual(controller.unobserve(root, keyPath: "middle.leaf"), .removed)
        }
        XCTAssertEqual(root.observationCount, 0)
    }

    /// Behind a wrapper of GuardCore's runtime the guard takes no shortcut: every add and every removal goes through
    /// the wrapper. Behind the runtime itself the guard inserts and removes in the object's table directly, with the
    /// same effect on the object.
    func testEveryAddAndRemovalGoesThroughAWrapperAndTheShortcutHasTheSameEffect() {
        final class Calls: @unchecked Sendable {
            let lock = NSLock()
            var log: [String] = []
            func note(_ call: String) { lock.withLock { log.append(call) } }
        }
        let calls = Calls()
        let wrapped = WrappedRuntimeBackend(
            beforeAdd: { keyPath, _ in calls.note("add \(keyPath)") }, beforeRemove: { _ in calls.note("remove") })
        for backend in [wrapped, KVORuntimeBackend()] as [any KeyValueObservingBackend] {
            let observer = GuardTestObserver()
            let person = Person()
            let controller = ObservationController(
                observer: observer, retainsObservedObjects: true, backend: backend, diagnosticSink: CountingSink())
            XCTAssertEqual(controller.observe(person, keyPath: "name") { _, _, _ in }, .registered)
            XCTAssertEqual(controller.observe(person, keyPath: "fullName") { _, _, _ in }, .registered)
            XCTAssertEqual(person.observationCount(forKeyPath: "name"), 1)
            XCTAssertEqual(person.observationCount(forKeyPath: "fullName"), 1)
            XCTAssertEqual(controller.unobserve(person, keyPath: "name"), .removed)
            XCTAssertEqual(person.observationCount, 1)
            controller.unobserveAll()
            XCTAssertEqual(person.observationCount, 0)
        }
        XCTAssertEqual(calls.log, ["add name", "add fullName", "remove", "remove"], "the wrapper saw every call once")
    }

    private func makeWrappedController(
        for observer: GuardTestObserver
    ) -> (CountingSink, ObservationController<GuardTestObserver>) {
        let sink = CountingSink()
        let controller = ObservationController(
            observer: observer, retainsObservedObjects: true, backend: WrappedRuntimeBackend(), diagnosticSink: sink)
        return (sink, controller)
    }

    /// A dependent key is announced by the keys it depends on: the registration must hear them, not only a change of
    /// the key itself.
    func testADependentKeyHearsTheKeysItDependsOn() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeWrappedController(for: observer)
        let person = Person()
        let log = HandlerLog()
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(person, keyPath: "fullName", options: .new, handler: log.recording("full")),
                .registered)
            person.firstName = "Ada"
            person.lastName = "Lovelace"
        }
        XCTAssertEqual(
            log.all,
            [
                expectedCall("full", observer: observer, object: person, keyPath: "fullName", new: "Ada "),
                expectedCall("full", observer: observer, object: person, keyPath: "fullName", new: "Ada Lovelace"),
            ])
        XCTAssertEqual(sink.records, [])
    }

    /// Removing the registration takes it out of the runtime: nothing is left registered on the object, and the
    /// object is freed once the controller lets go of it.
    func testUnobservingLeavesNothingRegisteredAndFreesTheObject() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeWrappedController(for: observer)
        weak var weakPerson: Person?
        assertNoMisuse {
            do {
                let person = Person()
                weakPerson = person
                XCTAssertEqual(controller.observe(person, keyPath: "fullName", options: .new) { _, _, _ in }, .registered)
                XCTAssertEqual(controller.observe(person, keyPath: "age", options: .new) { _, _, _ in }, .registered)
                XCTAssertEqual(person.observationCount, 2)
                XCTAssertEqual(controller.unobserve(person, keyPath: "fullName"), .removed)
                XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .removed)
                XCTAssertEqual(person.observationCount, 0)
            }
        }
        XCTAssertNil(weakPerson)
        XCTAssertEqual(sink.records, [])
    }

    /// A dotted key path follows its chain: it hears a change of the linked object's leaf and of the link, and once
    /// removed leaves nothing registered on either object, and frees both.
    func testADottedKeyPathFollowsItsChainAndLeavesNothingBehind() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeWrappedController(for: observer)
        let log = HandlerLog()
        weak var weakPerson: Person?
        weak var weakAccount: Account?
        assertNoMisuse {
            do {
                let person = Person()
                let account = Account()
                weakPerson = person
                weakAccount = account
                person.account = account
                XCTAssertEqual(
                    controller.observe(person, keyPath: "account.balance", options: .new, handler: log.recording("b")),
                    .registered)
                account.balance = 1
                person.account = Account()
                XCTAssertEqual(controller.unobserve(person, keyPath: "account.balance"), .removed)
                XCTAssertEqual(person.observationCount, 0)
                XCTAssertEqual(account.observationCount, 0)
                XCTAssertEqual(person.account?.observationCount, 0)
                account.balance = 2
            }
        }
        // The leaf change (1), then the new account (its balance 0).
        XCTAssertEqual(log.all.map(\.new), [.of(1), .of(0)])
        XCTAssertNil(weakPerson)
        XCTAssertNil(weakAccount)
        XCTAssertEqual(sink.records, [])
    }
}
