import Foundation
import GuardCore
import XCTest

/// Keys a class does not have: Foundation's `NSUnknownKeyException`, our misuse `unknownKey`.
final class UnknownKeyTests: XCTestCase {
    /// Asserts that `read` returns `nil` and causes exactly one misuse: `unknownKey` for `key`, reported by `object`.
    private func assertReadOfAnUnknownKey(
        _ read: () -> Any?, reportedBy object: AnyObject, key: String, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        var value: Any? = "sentinel"
        let misuses = recordingMisuse { value = read() }
        XCTAssertNil(value, file: file, line: line)
        XCTAssertEqual(misuses, [Expected.unknownKey(object: object, key: key)], file: file, line: line)
    }

    func testAddingAnObserverForAnUnknownKeyIsMisuseAndRegistersNothing() throws {
        let person = Person()
        let recorder = Recorder()
        let baseline = RuntimeMonitor.liveObservanceCount
        let misuses = recordingMisuse {
            person.addObserver(recorder, forKeyPath: "nope", options: [.initial, .new])
        }
        XCTAssertEqual(misuses, [Expected.unknownKey(object: person, key: "nope")])
        let misuse = try XCTUnwrap(misuses.first)
        XCTAssertEqual(
            misuse.message,
            "[\(rendered(person)) valueForUndefinedKey:]: this class is not key value coding-compliant for the key nope.")
        XCTAssertEqual(
            misuse.terminationMessage,
            "*** Terminating app due to uncaught exception 'NSUnknownKeyException', reason: '\(misuse.message)'")
        XCTAssertEqual(recorder.notes, [], "no initial notification for a key that does not exist")
        XCTAssertEqual(person.observationCount, 0)
        XCTAssertEqual(RuntimeMonitor.liveObservanceCount, baseline)
        // Nothing was registered, so removing is not-registered.
        let removal = recordingMisuse { person.removeObserver(recorder, forKeyPath: "nope") }
        XCTAssertEqual(removal, [Expected.notRegistered(observer: recorder, object: person, keyPath: "nope")])
    }

    func testUnknownKeysOnASubclassAndMalformedKeyPaths() {
        let student = Student()
        let person = Person()
        let recorder = Recorder()
        let misuses = recordingMisuse {
            student.addObserver(recorder, forKeyPath: "age")
            person.addObserver(recorder, forKeyPath: "")
            person.addObserver(recorder, forKeyPath: "account..balance")
            person.addObserver(recorder, forKeyPath: ".age")
            person.addObserver(recorder, forKeyPath: "age.")
        }
        XCTAssertEqual(
            misuses,
            [
                Expected.unknownKey(object: student, key: "age"),
                Expected.unknownKey(object: person, key: ""),
                Expected.unknownKey(object: person, key: "account..balance"),
                Expected.unknownKey(object: person, key: ".age"),
                Expected.unknownKey(object: person, key: "age."),
            ])
        XCTAssertEqual(student.observationCount + person.observationCount, 0)
    }

    func testKnownKeysOfEveryKindRegisterWithoutMisuse() {
        let person = Person()
        let student = Student()
        let recorder = Recorder()
        let keys = ["age", "plainNote", "fullName", "greeting", "account", "account.balance", "wallet.balance"]
        assertNoMisuse {
            for key in keys { person.addObserver(recorder, forKeyPath: key) }
            student.addObserver(recorder, forKeyPath: "id")
            student.addObserver(recorder, forKeyPath: "school")
            XCTAssertEqual(person.observedKeyPaths, keys.sorted())
            XCTAssertEqual(student.observedKeyPaths, ["id", "school"])
            for key in keys { person.removeObserver(recorder, forKeyPath: key) }
            student.removeObserver(recorder, forKeyPath: "id")
            student.removeObserver(recorder, forKeyPath: "school")
        }
    }

    func testValueForAnUnknownKeyIsMisuseAndNil() {
        let person = Person()
        assertReadOfAnUnknownKey({ person.value(forKey: "nope") }, reportedBy: person, key: "nope")
    }

    func testValueForKeyPathWithAnUnknownKeyDeeperDownIsReportedByTheObjectThatLacksIt() {
        let person = Person()
        let savings = Account()
        person.account = savings
        assertReadOfAnUnknownKey({ person.value(forKeyPath: "account.nope") }, reportedBy: savings, key: "nope")
    }

    func testValueForKeyPathThroughAValueThatIsNotAnObservableObjectIsReportedByThatValue() {
        // As deeper down: the value that lacks the next key reports it (a `String` here, which has no address).
        let person = Person()
        var value: Any?
        let misuses = recordingMisuse { value = person.value(forKeyPath: "plainNote.count") }
        XCTAssertNil(value)
        XCTAssertEqual(
            misuses,
            [
                KVOMisuse(
                    kind: .unknownKey, exceptionName: "NSUnknownKeyException",
                    message: "[<String> valueForUndefinedKey:]: this class is not key value coding-compliant for the "
                        + "key count.",
                    keyPath: "count", object: "<String>", observer: nil, thread: "main")
            ])
    }

    func testAComputedPropertyKeyPathHasNoNameAndIsUnknown() {
        let person = Person()
        let recorder = Recorder()
        let keyPath = \Person.fullName
        let misuses = recordingMisuse {
            person.addObserver(recorder, forKeyPath: keyPath, options: [.initial])
            person.removeObserver(recorder, forKeyPath: keyPath)
            person.removeObserver(recorder, forKeyPath: keyPath, context: Contexts.first)
        }
        // There is no name to be had: the key is the key path as a reader can follow it, without accessor addresses.
        let expected = Expected.unnamedKeyPath(object: person, description: "\\Person.<computed: String>")
        XCTAssertEqual(misuses, [expected, expected, expected])
        XCTAssertEqual(recorder.notes, [])
        XCTAssertEqual(person.observationCount, 0)
    }

    func testAReadOnlyAliasOfAnObservedPropertyHasNoName() {
        let person = Person()
        let student = Student()
        let recorder = Recorder()
        let misuses = recordingMisuse {
            person.addObserver(recorder, forKeyPath: \.ageAlias)
            student.addObserver(recorder, forKeyPath: \.idAlias)
        }
        XCTAssertEqual(
            misuses,
            [
                Expected.unnamedKeyPath(object: person, description: "\\Person.<computed: Int>"),
                Expected.unnamedKeyPath(object: student, description: "\\Student.<computed: Int>"),
            ])
        XCTAssertEqual(person.observationCount + student.observationCount, 0)
    }

    /// Foundation's `observe(\.account?.balance)` observes `account.balance`, whether or not there is an account.
    func testAnOptionalChainIsNamedWhetherOrNotTheIntermediateIsThere() {
        let person = Person()
        let recorder = Recorder()
        let keyPath = \Person.account?.balance
        let savings = Account()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: keyPath)
            person.account = savings
            person.addObserver(recorder, forKeyPath: keyPath, options: [.new])
            savings.balance = 3
            person.removeObserver(recorder, forKeyPath: keyPath)
            person.removeObserver(recorder, forKeyPath: keyPath)
        }
        XCTAssertEqual(
            recorder.notes,
            [Note("account.balance"), Note("account.balance", new: shown(3)), Note("account.balance")])
        XCTAssertEqual(person.observationCount + savings.observationCount, 0)
    }

    func testUnknownKeyMisuseUnderLogContinuesAndCounts() {
        let person = Person()
        let recorder = Recorder()
        RuntimeMonitor.resetMisuseRecords()
        let log = capturingStandardError {
            RuntimeMonitor.withMisusePolicy(.log) {
                person.addObserver(recorder, forKeyPath: "nope")
                XCTAssertNil(person.value(forKey: "nope"))
            }
        }
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .unknownKey), 2)
        let expected = Expected.unknownKey(object: person, key: "nope")
        XCTAssertEqual(log, String(repeating: "KVOGuard runtime misuse: \(expected.description)\n", count: 2))
        RuntimeMonitor.resetMisuseRecords()
    }
}
