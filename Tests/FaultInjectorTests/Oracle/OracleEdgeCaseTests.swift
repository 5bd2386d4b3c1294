@testable import FaultInjector
import GuardCore
import XCTest

/// The oracle's rules for the widened scenarios, on hand-built histories: removals that overlap their own
/// observe, whole-object removals, counts and queries, diagnostics, dotted and to-many notifications, changes after
/// the `.initial` notification, refused arguments.
final class OracleEdgeCaseTests: XCTestCase {
    private let guardOracle = Oracle(checksGuardSemantics: true)
    private let diagnosticsOracle = Oracle(checksGuardSemantics: true, checksDiagnostics: true)
    private let rawOracle = Oracle(checksGuardSemantics: false)

    // MARK: A removal that overlaps its own observe ends the registration

    /// An unobserve inside the `.initial` handler (a child of the observe) removes the registration the observe made:
    /// a change made after it returned must not reach the handler.
    func testARemovalNestedInTheObserveEndsTheRegistration() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.k0, options: [.initial], at: 10, returning: 40)
        builder.deliverInitial(to: observe, at: 15)
        builder.unobserve(.k0, at: 20, returning: 25, parent: observe.id)
        let change = builder.mutate(.k0, from: 0, to: 1, at: 50, returning: 60)
        assertPassed(guardOracle.evaluate(builder.history, facts: RunFacts()))

        builder.deliver(change, to: observe, at: 55)
        assertOnly(
            .deliveryOutsideRegistration, in: guardOracle.evaluate(builder.history, facts: RunFacts()),
            mentioning: "no change made after unobserve returned is delivered to the removed registration")
    }

    /// A concurrent unobserve that reported `removed` while the observe was running, when no other registration of
    /// the key path could have been the one it removed: every explanation orders it after the observe.
    func testAConcurrentRemovalOrderedAfterTheObserveEndsTheRegistration() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.k0, at: 10, returning: 40)
        builder.unobserve(.k0, at: 15, returning: 30, worker: 1)
        let change = builder.mutate(.k0, from: 0, to: 1, at: 50, returning: 60)
        builder.deliver(change, to: observe, at: 55)
        assertOnly(
            .deliveryOutsideRegistration, in: guardOracle.evaluate(builder.history, facts: RunFacts()),
            mentioning: "no change made after unobserve returned is delivered to the removed registration")
    }

    /// The same removal, when an earlier registration may still have been live, may have removed that one instead:
    /// a later delivery to this registration is then allowed.
    func testAConcurrentRemovalThatMayHaveRemovedAnotherRegistrationDoesNotEndThisOne() {
        var builder = HistoryBuilder()
        builder.observe(.k0, at: 0, returning: 5)
        builder.unobserveAll(at: 6, returning: 50, removed: 1, worker: 2)
        let observe = builder.observe(.k0, at: 10, returning: 40)
        builder.unobserve(.k0, at: 15, returning: 30, worker: 1)
        let change = builder.mutate(.k0, from: 0, to: 1, at: 45, returning: 46)
        builder.deliver(change, to: observe, at: 45)
        let report = guardOracle.evaluate(builder.history, facts: RunFacts())
        XCTAssertNil(report.violationCounts[.deliveryOutsideRegistration], report.violations.map(\.message).joined(separator: " | "))
    }

    // MARK: Whole-object removals, counts and queries

    func testUnobserveOfAnObjectIsLinearizedWithItsKeys() {
        var builder = HistoryBuilder()
        builder.observe(.k0, at: 10, returning: 20)
        builder.observe(.k1, at: 30, returning: 40)
        builder.unobserveObject(at: 50, returning: 60, outcome: .removed)
        builder.unobserveObject(at: 70, returning: 80, outcome: .alreadyRemoved)
        builder.unobserve(.k2, at: 90, returning: 95, outcome: .notRegistered)
        builder.unobserve(.k1, at: 96, returning: 97, outcome: .alreadyRemoved)
        builder.unobserveObject(at: 100, returning: 110, outcome: .notRegistered, object: 301)
        assertPassed(guardOracle.evaluate(builder.history, facts: RunFacts()))

        var wrong = HistoryBuilder()
        wrong.observe(.k0, at: 10, returning: 20)
        wrong.unobserveObject(at: 50, returning: 60, outcome: .notRegistered)
        assertOnly(.nonLinearizable, in: guardOracle.evaluate(wrong.history, facts: RunFacts()), mentioning: "unobserveObject")

        var stillRegistered = HistoryBuilder()
        stillRegistered.observe(.k0, at: 10, returning: 20)
        stillRegistered.observe(.k1, at: 21, returning: 22)
        stillRegistered.unobserve(.k0, at: 30, returning: 40)
        stillRegistered.unobserveObject(at: 50, returning: 60, outcome: .alreadyRemoved)
        assertOnly(
            .nonLinearizable, in: guardOracle.evaluate(stillRegistered.history, facts: RunFacts()),
            mentioning: "alreadyRemoved")
    }

    func testAnObservedKeyPathsAnswerMustBeSortedWithEachKeyPathOnce() {
        let sorted = StressWorld.keyMask(["k0", "sum"])
        XCTAssertEqual(UInt64(sorted), StressKey.k0.bit | StressKey.sum.bit)
        XCTAssertEqual(UInt64(StressWorld.keyMask(["sum", "k0"])), UInt64(sorted) | StressWorld.unsortedKeyPathsBit)
        XCTAssertEqual(UInt64(StressWorld.keyMask(["k0", "k0"])), StressKey.k0.bit | StressWorld.unsortedKeyPathsBit)
        XCTAssertEqual(StressWorld.keyMask([]), 0)
        XCTAssertEqual(UInt64(StressWorld.keyMask(["k0"])), StressKey.k0.bit)
    }

    func testQueriesAreCheckedAgainstTheLinearizedState() {
        var builder = HistoryBuilder()
        builder.observe(.k0, at: 10, returning: 20)
        builder.observe(.sum, at: 21, returning: 22)
        builder.query(.isObserving, key: .k0, answer: 1, at: 30, returning: 31)
        builder.query(.isObserving, key: .k1, answer: 0, at: 32, returning: 33)
        builder.query(.observedKeyPaths, answer: Int(StressKey.k0.bit | StressKey.sum.bit), at: 34, returning: 35)
        builder.query(.countRegistrations, answer: 2, at: 36, returning: 37)
        assertPassed(guardOracle.evaluate(builder.history, facts: RunFacts()))

        var lying = builder
        lying.query(.isObserving, key: .sum, answer: 0, at: 40, returning: 41)
        assertOnly(.nonLinearizable, in: guardOracle.evaluate(lying.history, facts: RunFacts()), mentioning: "isObserving")

        var unknownName = builder
        unknownName.query(
            .observedKeyPaths, answer: Int(StressKey.k0.bit | StressKey.sum.bit | StressWorld.unknownKeyPathBit),
            at: 40, returning: 41)
        assertOnly(
            .nonLinearizable, in: guardOracle.evaluate(unknownName.history, facts: RunFacts()),
            mentioning: "a key path no operation observes")

        var unsorted = builder
        unsorted.query(
            .observedKeyPaths, answer: StressWorld.keyMask(["sum", "k0"]), at: 40, returning: 41)
        assertOnly(
            .nonLinearizable, in: guardOracle.evaluate(unsorted.history, facts: RunFacts()),
            mentioning: "not sorted, or a key path twice")

        var miscounted = builder
        miscounted.query(.countRegistrations, answer: 3, at: 40, returning: 41)
        assertOnly(
            .nonLinearizable, in: guardOracle.evaluate(miscounted.history, facts: RunFacts()),
            mentioning: "counted 3 registrations, but 2 were surely and 2 possibly registered")
    }

    /// `unobserveAll()` says how many it removed: at least those surely registered throughout the call, at most those
    /// possibly registered at some instant of it.
    func testUnobserveAllCountLiesBetweenSurelyAndPossiblyRegistered() {
        func history(removed: Int) -> History {
            var builder = HistoryBuilder()
            builder.observe(.k0, at: 10, returning: 20)
            builder.observe(.k1, at: 21, returning: 22)
            builder.observe(.k2, at: 45, returning: 55, worker: 1)  // overlaps the unobserve-all: may or may not count
            builder.unobserveAll(at: 40, returning: 50, removed: removed)
            return builder.history
        }
        for removed in [2, 3] {
            let report = guardOracle.evaluate(history(removed: removed), facts: RunFacts())
            XCTAssertNil(report.violationCounts[.nonLinearizable], "removed \(removed): \(report.violations.map(\.message))")
        }
        for removed in [1, 4] {
            let report = guardOracle.evaluate(history(removed: removed), facts: RunFacts())
            XCTAssertEqual(report.violationCounts[.nonLinearizable], 1, "removed \(removed)")
            XCTAssertTrue(
                report.violations.contains { $0.message.contains("removed \(removed) registrations, but 2 were surely and 3 possibly") },
                report.violations.map(\.message).joined(separator: " | "))
        }
    }

    // MARK: Diagnostics

    func testEveryDiagnosticMatchesItsCallsResult() {
        var builder = HistoryBuilder()
        builder.observe(.k0, at: 10, returning: 20)
        let duplicate = builder.observe(.k0, at: 30, returning: 40, outcome: .duplicate)
        builder.diagnostic(.duplicateObservation, for: duplicate, keyPath: "k0")
        builder.unobserve(.k0, at: 50, returning: 60)
        let again = builder.unobserve(.k0, at: 70, returning: 80, outcome: .alreadyRemoved)
        builder.diagnostic(.doubleRemoval, for: again, keyPath: "k0")
        let never = builder.unobserve(.k1, at: 90, returning: 95, outcome: .notRegistered)
        builder.diagnostic(.removalOfUnregistered, for: never, keyPath: "k1")
        let refused = builder.observe(.owner, at: 96, returning: 97, outcome: .invalid)
        builder.diagnostic(.invalidArgument, for: refused, keyPath: "owner", reason: .unobservableKeyPath)
        let clean = builder.history
        let report = diagnosticsOracle.evaluate(clean, facts: RunFacts())
        assertPassed(report)
        XCTAssertEqual(report.checks[DiagnosticChecks.rule], 6)

        var missing = builder
        missing.history.diagnostics.removeFirst()
        assertOnly(
            .diagnosticMismatch, in: diagnosticsOracle.evaluate(missing.history, facts: RunFacts()),
            mentioning: "reported duplicate with 0 diagnostics instead of one duplicateObservation")

        var named = builder
        named.history.diagnostics = named.history.diagnostics.map { event in
            var event = event
            event.observerType = "StressObserver"
            event.objectType = event.objectAddress == nil ? nil : "StressObject"
            return event
        }
        assertPassed(diagnosticsOracle.evaluate(named.history, facts: RunFacts()))
        var swapped = named
        swapped.history.diagnostics[0].observerType = "StressObject"
        assertOnly(
            .diagnosticMismatch, in: diagnosticsOracle.evaluate(swapped.history, facts: RunFacts()),
            mentioning: "observer type StressObject instead of StressObserver")
        var elsewhere = named
        elsewhere.history.diagnostics[1].namesReportingThread = false
        assertOnly(
            .diagnosticMismatch, in: diagnosticsOracle.evaluate(elsewhere.history, facts: RunFacts()),
            mentioning: "a thread other than the one that reported it")
        var otherObject = named
        otherObject.history.diagnostics[2].objectAddress = 0x1000
        otherObject.history.diagnostics[2].objectType = "StressStranger"
        assertOnly(
            .diagnosticMismatch, in: diagnosticsOracle.evaluate(otherObject.history, facts: RunFacts()),
            mentioning: "object type StressStranger instead of StressObject")

        var wrongKeyPath = HistoryBuilder()
        wrongKeyPath.observe(.k0, at: 10, returning: 20)
        let second = wrongKeyPath.observe(.k0, at: 30, returning: 40, outcome: .duplicate)
        wrongKeyPath.diagnostic(.duplicateObservation, for: second, keyPath: "k1")
        assertOnly(
            .diagnosticMismatch, in: diagnosticsOracle.evaluate(wrongKeyPath.history, facts: RunFacts()),
            mentioning: "key path \"k1\" instead of \"k0\"")

        var extra = HistoryBuilder()
        let registered = extra.observe(.k0, at: 10, returning: 20)
        extra.diagnostic(.duplicateObservation, for: registered, keyPath: "k0")
        assertOnly(
            .diagnosticMismatch, in: diagnosticsOracle.evaluate(extra.history, facts: RunFacts()),
            mentioning: "reported registered but came with a duplicateObservation diagnostic")

        var stray = HistoryBuilder()
        stray.observe(.k0, at: 10, returning: 20)
        stray.history.diagnostics.append(
            DiagnosticRecord(kind: .doubleRemoval, reason: nil, keyPath: "k0", operation: 999, worker: 0, time: 30))
        assertOnly(
            .diagnosticMismatch, in: diagnosticsOracle.evaluate(stray.history, facts: RunFacts()),
            mentioning: "named call site 999, which no performed call had")

        // Without diagnostics checking, the same histories pass.
        XCTAssertTrue(guardOracle.evaluate(missing.history, facts: RunFacts()).passed)
    }

    /// A change that reaches a registration after its observer is gone, while the registration surely stays, must
    /// be reported (a guard that drops it silently hides the mistake).
    func testAGoneObserverThatAChangeReachedMustBeReported() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.k0, at: 10, returning: 20)
        builder.history.observerDeinitTimes[observe.observer] = 25
        builder.mutate(.k0, from: 0, to: 1, at: 30, returning: 40)
        assertOnly(
            .diagnosticMismatch, in: diagnosticsOracle.evaluate(builder.history, facts: RunFacts()),
            mentioning: "never reported its gone observer")

        var reported = builder
        reported.history.diagnostics.append(
            DiagnosticRecord(
                kind: .observerDeallocated, reason: nil, keyPath: "k0", operation: observe.id, worker: 0, time: 35))
        assertPassed(diagnosticsOracle.evaluate(reported.history, facts: RunFacts()))

        var changedBefore = HistoryBuilder()
        let early = changedBefore.observe(.k0, at: 10, returning: 20)
        changedBefore.mutate(.k0, from: 0, to: 1, at: 30, returning: 40)
        changedBefore.history.observerDeinitTimes[early.observer] = 35
        assertPassed(diagnosticsOracle.evaluate(changedBefore.history, facts: RunFacts()))
    }

    /// A diagnostic names the object of the call it belongs to (recorded by address while the call ran).
    func testADiagnosticNamingAnotherObjectIsAMismatch() {
        var builder = HistoryBuilder()
        var never = builder.unobserve(.k1, at: 10, returning: 20, outcome: .notRegistered)
        never.objectAddress = 0x1000
        builder.history.operations[builder.history.operations.count - 1] = never
        var event = DiagnosticRecord(
            kind: .removalOfUnregistered, reason: nil, keyPath: "k1", operation: never.id, worker: never.worker,
            time: 15, objectAddress: 0x1000)
        var right = builder
        right.history.diagnostics.append(event)
        assertPassed(diagnosticsOracle.evaluate(right.history, facts: RunFacts()))

        var wrong = builder
        event.objectAddress = 0x2000
        wrong.history.diagnostics.append(event)
        assertOnly(
            .diagnosticMismatch, in: diagnosticsOracle.evaluate(wrong.history, facts: RunFacts()),
            mentioning: "object 0x2000 instead of 0x1000")
    }

    // MARK: Dotted key paths and to-many changes

    /// `link.k0` of object 300 hears the links of 300 and the changes of `k0` of the object it links (301), with the
    /// right values; a change of an object it does not link is not for it, and a stable link's change must be heard.
    func testDottedNotificationsFollowTheLink() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.linkK0, options: [.old, .new], at: 10, returning: 20)
        let link = builder.link(300, to: 301, leaf: nil, to: 7, at: 30, returning: 40)
        builder.deliver(link, to: observe, at: 35)
        let leaf = builder.mutate(.k0, from: 7, to: 8, at: 50, returning: 60, object: 301)
        builder.deliver(leaf, to: observe, at: 55)
        let other = builder.mutate(.k0, from: 0, to: 9, at: 70, returning: 80, object: 302)
        let clean = builder
        assertPassed(guardOracle.evaluate(clean.history, facts: RunFacts()))
        assertPassed(rawOracle.evaluate(clean.history, facts: RunFacts()))

        var notLinked = clean
        notLinked.deliver(other, to: observe, at: 75)
        assertOnly(
            .unexpectedDelivery, in: guardOracle.evaluate(notLinked.history, facts: RunFacts()),
            mentioning: "which does not affect it")

        var missed = clean
        missed.history.deliveries.removeAll { $0.cause == leaf.id }
        assertOnly(
            .missingDelivery, in: guardOracle.evaluate(missed.history, facts: RunFacts()),
            mentioning: "was live throughout mutate")

        var wrongLeaf = clean
        wrongLeaf.history.deliveries.removeAll { $0.cause == link.id }
        wrongLeaf.deliver(link, to: observe, at: 35, old: 7)
        assertOnly(
            .valueMismatch, in: guardOracle.evaluate(wrongLeaf.history, facts: RunFacts()),
            mentioning: "old 7 instead of nil")
    }

    func testToManyNotificationsCarryTheirKindAndIndexes() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.items, options: [.old, .new], at: 10, returning: 20)
        let insertion = builder.changeItems(.insertion, mask: 0b101, old: StressValue.nilValue, new: 42, at: 30, returning: 40)
        func delivery(kind: UInt8, mask: UInt64, hasOld: Bool) -> DeliveryRecord {
            DeliveryRecord(
                registration: observe.id, cause: insertion.id, worker: 0, sequence: 0, time: 35, kind: kind,
                isPrior: false, hasOld: hasOld, hasNew: true, oldValue: .min, newValue: 42, observer: observe.observer,
                keyPathMatches: true, indexMask: mask)
        }
        var clean = builder
        clean.add(delivery(kind: 2, mask: 0b101, hasOld: false))
        assertPassed(guardOracle.evaluate(clean.history, facts: RunFacts()))

        var wrongIndexes = builder
        wrongIndexes.add(delivery(kind: 2, mask: 0b001, hasOld: false))
        assertOnly(
            .valueMismatch, in: guardOracle.evaluate(wrongIndexes.history, facts: RunFacts()),
            mentioning: "indexes [0] instead of [0,2]")

        var wrongKind = builder
        wrongKind.add(delivery(kind: 1, mask: 0b101, hasOld: false))
        assertOnly(.valueMismatch, in: guardOracle.evaluate(wrongKind.history, facts: RunFacts()), mentioning: "kind 1 instead of 2")

        var oldForAnInsertion = builder
        oldForAnInsertion.add(delivery(kind: 2, mask: 0b101, hasOld: true))
        assertOnly(
            .valueMismatch, in: guardOracle.evaluate(oldForAnInsertion.history, facts: RunFacts()),
            mentioning: "an old value it should not have")
    }

    // MARK: `.initial` and changes after it

    /// With `.initial`, the registration exists before the initial value is read (just before the initial
    /// notification arrives), so a change that begins after that notification must be delivered, even while the
    /// observe is still running. The raw runtime, like Foundation, makes no such promise.
    func testAChangeBegunAfterTheInitialNotificationMustBeHeard() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.k0, options: [.initial], at: 10, returning: 40)
        builder.deliverInitial(to: observe, at: 15)
        let change = builder.mutate(.k0, from: 0, to: 1, at: 20, returning: 25, worker: 1)
        assertOnly(
            .missingDelivery, in: guardOracle.evaluate(builder.history, facts: RunFacts()),
            mentioning: "was live throughout mutate")
        var heard = builder
        heard.deliver(change, to: observe, at: 22)
        assertPassed(guardOracle.evaluate(heard.history, facts: RunFacts()))
        XCTAssertTrue(rawOracle.evaluate(builder.history, facts: RunFacts()).passed)
    }

    // MARK: Refused arguments and unrouted notifications

    func testKeysThatCannotBeObservedMustBeRefused() {
        var builder = HistoryBuilder()
        builder.observe(.owner, at: 10, returning: 20, outcome: .registered)
        assertOnly(
            .unexpectedResult, in: guardOracle.evaluate(builder.history, facts: RunFacts()),
            mentioning: "that key path cannot be observed")

        var invalidLink = HistoryBuilder()
        invalidLink.observe(.linkK0, at: 10, returning: 20, outcome: .invalid)
        assertOnly(
            .unexpectedResult, in: guardOracle.evaluate(invalidLink.history, facts: RunFacts()), mentioning: "reported invalid")
        var strangerLinked = HistoryBuilder()
        strangerLinked.link(300, to: 999, leaf: nil, to: nil, at: 1, returning: 5)
        strangerLinked.observe(.linkK0, at: 10, returning: 20, outcome: .invalid)
        assertPassed(guardOracle.evaluate(strangerLinked.history, facts: RunFacts()))
    }

    /// A handler must get the object its registration observes, not another object the controller observes.
    func testANotificationHandingTheHandlerAnotherObjectIsMisrouted() {
        var builder = HistoryBuilder()
        let observe = builder.observe(.k0, at: 10, returning: 20)
        let change = builder.mutate(.k0, from: 0, to: 1, at: 30, returning: 40)
        var clean = builder
        var delivery = clean.deliver(change, to: observe, at: 35)
        assertPassed(guardOracle.evaluate(clean.history, facts: RunFacts()))

        var namedRight = builder
        delivery.object = observe.object
        namedRight.add(delivery)
        assertPassed(guardOracle.evaluate(namedRight.history, facts: RunFacts()))

        var wrongObject = builder
        delivery.object = observe.object + 1
        wrongObject.add(delivery)
        assertOnly(
            .misroutedDelivery, in: guardOracle.evaluate(wrongObject.history, facts: RunFacts()),
            mentioning: "handed the handler object \(observe.object + 1)")
    }

    func testNotificationsWithAContextNoRegistrationHasAreMisrouted() {
        var facts = RunFacts()
        facts.unroutedNotifications = 2
        assertOnly(
            .misroutedDelivery, in: guardOracle.evaluate(History(), facts: facts),
            mentioning: "2 notifications reached an observer's observeValue with a context no registration was made with")
    }
}
