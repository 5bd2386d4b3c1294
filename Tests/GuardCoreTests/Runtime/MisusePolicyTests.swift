import Foundation
@testable import GuardCore
import XCTest

/// The process-wide misuse policy (`.report`, `.log`; `.trap` is in TrapPolicyTests), counters and records.
final class MisusePolicyTests: XCTestCase {
    override func setUp() {
        super.setUp()
        RuntimeMonitor.resetMisuseRecords()
    }

    override func tearDown() {
        RuntimeMonitor.resetMisuseRecords()
        super.tearDown()
    }

    /// Causes one misuse of every kind, in `KVOMisuse.Kind.allCases` order, and returns what to expect.
    private func causeOneMisuseOfEachKind() -> [KVOMisuse] {
        var person: Person? = Person()
        let personAddress = address(of: person!)
        let stranger = Recorder()
        let expected = causeObservanceMisuses(on: person!, by: stranger)
            + causeKeyValueCodingMisuses(on: person!, by: stranger)
        // The person still holds the dead observer's registration: letting it go is one more misuse.
        RuntimeMonitor.withMisusePolicy(.report) {
            let countBefore = RuntimeMonitor.misuseCount
            person = nil
            XCTAssertEqual(RuntimeMonitor.misuseCount, countBefore + 1)
            XCTAssertEqual(RuntimeMonitor.reportedMisuses.last?.kind, .deallocatedWhileObserved)
            XCTAssertEqual(RuntimeMonitor.reportedMisuses.last?.object, "<Person: \(renderedAddress(personAddress))>")
        }
        return expected
    }

    /// Causes the misuses of observances and change notifications (`.notRegistered` to `.deallocatedWhileObserved`),
    /// one of each, leaving a dead observer's registration on `person`, and returns what to expect.
    private func causeObservanceMisuses(on person: Person, by stranger: Recorder) -> [KVOMisuse] {
        person.removeObserver(stranger, forKeyPath: "age")
        person.didChangeValue(forKey: "score")

        var observerAddress: UInt = 0
        do {
            let doomed = Recorder()
            observerAddress = address(of: doomed)
            person.addObserver(doomed, forKeyPath: "age")
        }
        person.age = 1

        var observed: Person? = Person()
        let observedAddress = address(of: observed!)
        observed!.addObserver(stranger, forKeyPath: "name")
        observed = nil

        return [
            Expected.notRegistered(observer: stranger, object: person, keyPath: "age"),
            Expected.unpairedDidChange(object: person, key: "score"),
            Expected.observerDeallocated(
                observerType: "Recorder", observerAddress: observerAddress, object: person, keyPath: "age"),
            Expected.deallocatedWhileObserved(
                objectType: "Person", objectAddress: observedAddress,
                observanceLines: [
                    observanceLine(
                        observerAddress: address(of: stranger), observerType: "Recorder", keyPath: "name",
                        options: "<New: NO, Old: NO, Prior: NO>")
                ],
                keyPaths: ["name"], firstObserver: rendered(stranger)),
        ]
    }

    /// Causes the misuses of keys, values, indexes and key paths (`.unknownKey` to `.reflectionUnavailable`), one of
    /// each, and returns what to expect.
    private func causeKeyValueCodingMisuses(on person: Person, by stranger: Recorder) -> [KVOMisuse] {
        _ = person.value(forKey: "nope")
        person.removeElements(at: IndexSet([5]), from: \.items)
        let overlong = (["name"] + Array(repeating: "x", count: 128)).joined(separator: ".")
        person.addObserver(stranger, forKeyPath: overlong)
        person.setValue("old", forKey: "age")
        person.setValue(nil, forKey: "age")
        person.addObserver(stranger, forKeyPath: "items.count")
        _ = person.value(forKeyPath: "items.@foo.x")
        let operators = "@count, @sum, @avg, @max, @min, @unionOfObjects, @distinctUnionOfObjects, @unionOfArrays, "
            + "@distinctUnionOfArrays, @distinctUnionOfSets"
        // A process without stored-property reflection (simulated on this thread, its one line captured).
        let keyless = KeylessInThisTest()
        _ = capturingStandardError {
            ReflectionUnavailableNotice.withReflectionUnavailable { _ = keyless.value(forKey: "level") }
        }
        return [
            Expected.unknownKey(object: person, key: "nope"),
            KVOMisuse(
                kind: .invalidIndexes, exceptionName: "NSRangeException",
                message: "*** -[NSMutableArray removeObjectsAtIndexes:]: index 5 in index set beyond bounds for empty "
                    + "array (key \"items\" of \(rendered(person)))",
                keyPath: "items", object: rendered(person), observer: nil, thread: "main"),
            KVOMisuse(
                kind: .keyPathTooLong, exceptionName: "NSInvalidArgumentException",
                message: "Cannot observe the key path \"name.x.x.x.x.x.x.x.… (129 components)\" of \(rendered(person)): "
                    + "it has more than 128 components, and following it could overflow the thread's stack.",
                keyPath: overlong, object: rendered(person), observer: nil, thread: "main"),
            KVOMisuse(
                kind: .typeMismatch, exceptionName: "NSInvalidArgumentException",
                message: "[\(rendered(person)) setValue:forKey:]: the value \"old\" (a String) cannot be stored in the "
                    + "key age, of type Int.",
                keyPath: "age", object: rendered(person), observer: nil, thread: "main"),
            KVOMisuse(
                kind: .nilValueForNonOptional, exceptionName: "NSInvalidArgumentException",
                message: "[\(rendered(person)) setNilValueForKey]: could not set nil as the value for the key age.",
                keyPath: "age", object: rendered(person), observer: nil, thread: "main"),
            KVOMisuse(
                kind: .keyPathThroughCollection, exceptionName: "NSInvalidArgumentException",
                message: "[<Array<String>> addObserver:forKeyPath:options:context:] is not supported. Key path: count "
                    + "(observing \"items.count\" of \(rendered(person)): arrays and sets cannot be observed, and "
                    + "neither can collection operators; observe \"items\" and read the rest with value(forKeyPath:).)",
                keyPath: "items.count", object: rendered(person), observer: nil, thread: "main"),
            KVOMisuse(
                kind: .unknownCollectionOperator, exceptionName: "NSUnknownKeyException",
                message: "[<Array<String>> valueForKeyPath:]: this class does not implement the foo operation. (@foo is "
                    + "not a collection operator; they are \(operators).)",
                keyPath: "@foo.x", object: "<Array<String>>", observer: nil, thread: "main"),
            KVOMisuse(
                kind: .reflectionUnavailable, exceptionName: "NSUnknownKeyException",
                message: "[\(rendered(keyless)) valueForUndefinedKey:]: cannot read the key level: the Swift runtime "
                    + "of this process offers no reflection, so GuardCore's key-value coding sees no stored property "
                    + "(it needs iOS 13.4, macOS 10.15.4, tvOS 13.4 or watchOS 6.2). Override value(forKey:) to "
                    + "answer the key.",
                keyPath: "level", object: rendered(keyless), observer: nil, thread: "main"),
        ]
    }

    func testReportRecordsEveryKindWithFoundationsExceptionNamesAndContinues() {
        var expected: [KVOMisuse] = []
        var reachedTheEnd = false
        RuntimeMonitor.withMisusePolicy(.report) {
            expected = causeOneMisuseOfEachKind()
            reachedTheEnd = true
        }
        XCTAssertTrue(reachedTheEnd)
        XCTAssertEqual(expected.map(\.kind), KVOMisuse.Kind.allCases)
        XCTAssertEqual(Array(RuntimeMonitor.reportedMisuses.prefix(expected.count)), expected)
        XCTAssertEqual(
            expected.map(\.exceptionName),
            [
                "NSRangeException", "NSInternalInconsistencyException", "EXC_BAD_ACCESS",
                "NSInternalInconsistencyException", "NSUnknownKeyException", "NSRangeException",
                "NSInvalidArgumentException", "NSInvalidArgumentException", "NSInvalidArgumentException",
                "NSInvalidArgumentException", "NSUnknownKeyException", "NSUnknownKeyException",
            ])
        // Plus the deallocatedWhileObserved of the person the helper let go.
        XCTAssertEqual(RuntimeMonitor.misuseCount, 13)
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .notRegistered), 1)
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .unpairedDidChange), 1)
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .observerDeallocated), 1)
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .deallocatedWhileObserved), 2)
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .unknownKey), 1)
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .invalidIndexes), 1)
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .keyPathTooLong), 1)
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .reflectionUnavailable), 1)
        XCTAssertEqual(
            RuntimeMonitor.misuseCountsByKind,
            [
                .notRegistered: 1, .unpairedDidChange: 1, .observerDeallocated: 1, .deallocatedWhileObserved: 2,
                .unknownKey: 1, .invalidIndexes: 1, .keyPathTooLong: 1, .typeMismatch: 1, .nilValueForNonOptional: 1,
                .keyPathThroughCollection: 1, .unknownCollectionOperator: 1, .reflectionUnavailable: 1,
            ])
    }

    func testLogWritesOneLinePerMisuseCountsRecordsAndContinues() {
        let person = Person()
        let recorder = Recorder()
        var reachedTheEnd = false
        let log = capturingStandardError {
            RuntimeMonitor.withMisusePolicy(.log) {
                person.addObserver(recorder, forKeyPath: "age")
                person.removeObserver(recorder, forKeyPath: "age")
                person.removeObserver(recorder, forKeyPath: "age")
                person.didChangeValue(forKey: "age")
                reachedTheEnd = true
            }
        }
        XCTAssertTrue(reachedTheEnd)
        let expected = [
            Expected.notRegistered(observer: recorder, object: person, keyPath: "age"),
            Expected.unpairedDidChange(object: person, key: "age"),
        ]
        XCTAssertEqual(log, expected.map { "KVOGuard runtime misuse: \($0.description)\n" }.joined())
        XCTAssertEqual(
            log.components(separatedBy: "\n").first,
            "KVOGuard runtime misuse: NSRangeException, reason: 'Cannot remove an observer \(rendered(recorder)) "
                + "for the key path \"age\" from \(rendered(person)) because it is not registered as an observer.' "
                + "(continuing under the misuse policy)")
        XCTAssertFalse(log.contains("Terminating"), "the log policy continues, so its line never says it terminates")
        XCTAssertEqual(RuntimeMonitor.misuseCount, 2)
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .notRegistered), 1)
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .unpairedDidChange), 1)
        XCTAssertEqual(RuntimeMonitor.reportedMisuses, expected)
    }

    /// Only `.trap` stops the process, so only its words may say the app terminates: under `.log` and `.report` every
    /// kind of misuse is told with Foundation's exception name and reason, and as continuing.
    func testLogAndReportNeverSayTheAppTerminatesButKeepFoundationsReason() {
        var expected: [KVOMisuse] = []
        let log = capturingStandardError {
            RuntimeMonitor.withMisusePolicy(.log) { expected = causeOneMisuseOfEachKind() }
        }
        XCTAssertEqual(expected.map(\.kind), KVOMisuse.Kind.allCases)
        // One entry per misuse (deallocatedWhileObserved's reason spans lines, as Foundation's does); the
        // reflection-unavailable misuse's went to the capture inside the helper.
        let entries = log.components(separatedBy: "KVOGuard runtime misuse: ")
        XCTAssertEqual(entries.first, "", log)
        XCTAssertEqual(entries.count - 1, KVOMisuse.Kind.allCases.count - 1, log)
        for entry in entries.dropFirst() {
            XCTAssertTrue(entry.hasSuffix("' (continuing under the misuse policy)\n"), entry)
            XCTAssertFalse(entry.lowercased().contains("terminat"), entry)
        }
        for misuse in RuntimeMonitor.reportedMisuses {
            XCTAssertEqual(
                misuse.description,
                "\(misuse.exceptionName), reason: '\(misuse.message)' (continuing under the misuse policy)")
            XCTAssertEqual(
                misuse.terminationMessage,
                "*** Terminating app due to uncaught exception '\(misuse.exceptionName)', reason: '\(misuse.message)'")
        }
        for misuse in expected where misuse.kind != .reflectionUnavailable {
            XCTAssertTrue(log.contains("KVOGuard runtime misuse: \(misuse.description)\n"), misuse.description)
        }
        RuntimeMonitor.resetMisuseRecords()
        RuntimeMonitor.withMisusePolicy(.report) { expected = causeOneMisuseOfEachKind() }
        XCTAssertEqual(RuntimeMonitor.reportedMisuses.count, KVOMisuse.Kind.allCases.count + 1)
        for misuse in RuntimeMonitor.reportedMisuses {
            XCTAssertFalse(misuse.description.lowercased().contains("terminat"), misuse.description)
            XCTAssertTrue(misuse.description.contains("reason: '\(misuse.message)'"), misuse.description)
        }
    }

    func testReportWritesNothingToStandardError() {
        let person = Person()
        let recorder = Recorder()
        let log = capturingStandardError {
            RuntimeMonitor.withMisusePolicy(.report) { person.removeObserver(recorder, forKeyPath: "age") }
        }
        XCTAssertEqual(log, "")
        XCTAssertEqual(RuntimeMonitor.misuseCount, 1)
    }

    func testResetMisuseRecordsZeroesEverythingButKeepsThePolicy() {
        let person = Person()
        let recorder = Recorder()
        RuntimeMonitor.withMisusePolicy(.report) {
            person.removeObserver(recorder, forKeyPath: "age")
            person.didChangeValue(forKey: "age")
            XCTAssertEqual(RuntimeMonitor.misuseCount, 2)
            RuntimeMonitor.resetMisuseRecords()
            XCTAssertEqual(RuntimeMonitor.misuseCount, 0)
            XCTAssertEqual(RuntimeMonitor.misuseCount(of: .notRegistered), 0)
            XCTAssertEqual(RuntimeMonitor.misuseCountsByKind, [:])
            XCTAssertEqual(RuntimeMonitor.reportedMisuses, [])
            XCTAssertEqual(RuntimeMonitor.misusePolicy, .report)
            person.removeObserver(recorder, forKeyPath: "age")
            XCTAssertEqual(RuntimeMonitor.misuseCount, 1, "counting resumes from zero")
        }
    }

    func testWithMisusePolicyNestsAndRestoresEvenWhenTheBodyThrows() throws {
        struct Failure: Error {}
        let original = RuntimeMonitor.misusePolicy
        try RuntimeMonitor.withMisusePolicy(.report) {
            XCTAssertEqual(RuntimeMonitor.misusePolicy, .report)
            let result = RuntimeMonitor.withMisusePolicy(.log) { () -> Int in
                XCTAssertEqual(RuntimeMonitor.misusePolicy, .log)
                return 42
            }
            XCTAssertEqual(result, 42)
            XCTAssertEqual(RuntimeMonitor.misusePolicy, .report)
            XCTAssertThrowsError(try RuntimeMonitor.withMisusePolicy(.log) { throw Failure() })
            XCTAssertEqual(RuntimeMonitor.misusePolicy, .report)
        }
        XCTAssertEqual(RuntimeMonitor.misusePolicy, original)
    }

    func testTheSetterChangesThePolicyForTheWholeProcess() {
        let original = RuntimeMonitor.misusePolicy
        defer { RuntimeMonitor.misusePolicy = original }
        RuntimeMonitor.misusePolicy = .report
        let person = Person()
        let recorder = Recorder()
        let (seenThere, _) = onAnotherThread { () -> MisusePolicy in
            person.removeObserver(recorder, forKeyPath: "age")
            return RuntimeMonitor.misusePolicy
        }
        XCTAssertEqual(seenThere, .report)
        XCTAssertEqual(RuntimeMonitor.misuseCount, 1)
        XCTAssertEqual(RuntimeMonitor.reportedMisuses.first?.kind, .notRegistered)
    }

    func testReportedMisusesKeepTheMostRecentUpToTheLimitWhileCountsKeepEverything() {
        let model = ManualModel()
        let total = RuntimeMonitor.reportedMisuseLimit + 1
        RuntimeMonitor.withMisusePolicy(.report) {
            for index in 0..<total { model.didChangeValue(forKey: "k\(index)") }
        }
        XCTAssertEqual(RuntimeMonitor.reportedMisuseLimit, 10_000)
        XCTAssertEqual(RuntimeMonitor.misuseCount, total)
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .unpairedDidChange), total)
        // At the limit, the oldest tenth is dropped to make room.
        let kept = RuntimeMonitor.reportedMisuses
        XCTAssertEqual(kept.count, total - RuntimeMonitor.reportedMisuseLimit / 10)
        XCTAssertEqual(kept.first?.keyPath, "k\(RuntimeMonitor.reportedMisuseLimit / 10)")
        XCTAssertEqual(kept.last?.keyPath, "k\(total - 1)")
        XCTAssertEqual(kept.last, Expected.unpairedDidChange(object: model, key: "k\(total - 1)"))
    }
}

/// A class only the reflection-unavailable case above uses (its key table is built without reflection).
private final class KeylessInThisTest: KVOObject {
    var level = 1
}
