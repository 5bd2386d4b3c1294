import Foundation
import GuardCore
import XCTest

/// `value(forKey:)` and `value(forKeyPath:)`, read the way key-value coding reads them.
final class KeyValueCodingTests: XCTestCase {
    /// The value's dynamic type, to check that optionals arrive unwrapped.
    private func dynamicType(_ value: Any?) -> Any.Type? {
        value.map { type(of: $0) }
    }

    func testObservedPropertiesAreReadByName() {
        let person = Person()
        person.age = 33
        person.name = "Ann"
        person.items = ["x"]
        assertNoMisuse {
            XCTAssertEqual(person.value(forKey: "age") as? Int, 33)
            XCTAssertTrue(dynamicType(person.value(forKey: "age")) == Int.self)
            XCTAssertEqual(person.value(forKey: "name") as? String, "Ann")
            XCTAssertEqual(person.value(forKey: "items") as? [String], ["x"])
            XCTAssertTrue(person.value(forKey: "wallet") as AnyObject? === person.wallet)
        }
    }

    func testValuesFollowChanges() {
        let person = Person()
        assertNoMisuse {
            XCTAssertEqual(person.value(forKey: "score") as? Int, 0)
            person.score = 12
            XCTAssertEqual(person.value(forKey: "score") as? Int, 12)
        }
    }

    func testPlainStoredPropertiesAreReadByName() {
        let person = Person()
        assertNoMisuse {
            XCTAssertEqual(person.value(forKey: "plainNote") as? String, "plain")
            person.plainNote = "changed"
            XCTAssertEqual(person.value(forKey: "plainNote") as? String, "changed")
        }
    }

    func testComputedKeysAreAnsweredByTheOverride() {
        let person = Person()
        person.firstName = "Ann"
        person.lastName = "Lee"
        assertNoMisuse {
            XCTAssertEqual(person.value(forKey: "fullName") as? String, "Ann Lee")
            XCTAssertEqual(person.value(forKey: "greeting") as? String, "Hello, Ann Lee")
        }
    }

    func testOptionalPropertiesGiveNilOrTheUnwrappedValue() {
        let person = Person()
        assertNoMisuse {
            XCTAssertNil(person.value(forKey: "nickname"))
            XCTAssertNil(person.value(forKey: "account"))
            person.nickname = "Nick"
            XCTAssertTrue(dynamicType(person.value(forKey: "nickname")) == String.self, "not Optional<String>")
            XCTAssertEqual(person.value(forKey: "nickname") as? String, "Nick")
        }
    }

    func testDottedKeyPaths() {
        let person = Person()
        person.wallet.balance = 5
        assertNoMisuse {
            XCTAssertEqual(person.value(forKeyPath: "wallet.balance") as? Int, 5)
            XCTAssertEqual(person.value(forKeyPath: "age") as? Int, 0, "an undotted key path is a key")
            XCTAssertNil(person.value(forKeyPath: "account.balance"), "a nil intermediate gives nil")
            XCTAssertNil(person.value(forKeyPath: "account.bank.name"))
            let bank = Bank()
            bank.name = "First"
            let account = Account()
            account.balance = 9
            account.bank = bank
            person.account = account
            XCTAssertEqual(person.value(forKeyPath: "account.balance") as? Int, 9)
            XCTAssertEqual(person.value(forKeyPath: "account.bank.name") as? String, "First")
            XCTAssertTrue(person.value(forKeyPath: "account.bank") as AnyObject? === bank)
        }
    }

    /// An intermediate value that is not a `KVOObject` does not know the next key: the misuse names that value and
    /// that key, as Foundation's exception from the intermediate would.
    func testAKeyPathThroughAValueThatIsNotAKVOObjectNamesThatValueAndItsKey() {
        final class Plain {}
        final class Holder: KVOObject, @unchecked Sendable {
            @Observed var text = "hi"
            @Observed var plain = Plain()
        }
        let holder = Holder()
        var results: [Any?] = []
        let misuses = recordingMisuse {
            results.append(holder.value(forKeyPath: "text.count"))
            results.append(holder.value(forKeyPath: "plain.size.width"))
        }
        XCTAssertTrue(results.allSatisfy { $0 == nil })
        XCTAssertEqual(misuses.map(\.kind), [.unknownKey, .unknownKey])
        XCTAssertEqual(misuses.map(\.keyPath), ["count", "size"])
        XCTAssertEqual(misuses.map(\.object), ["<String>", rendered(holder.plain)])
        XCTAssertEqual(
            misuses.first?.message,
            "[<String> valueForUndefinedKey:]: this class is not key value coding-compliant for the key count.")
    }

    func testInheritedPropertiesOfASubclass() {
        let student = Student()
        student.id = 7
        student.school = "North"
        assertNoMisuse {
            XCTAssertEqual(student.value(forKey: "id") as? Int, 7)
            XCTAssertEqual(student.value(forKey: "school") as? String, "North")
        }
    }

    func testReadingValuesNotifiesNobody() {
        let person = Person()
        let recorder = Recorder()
        whileObserving(person, "age", with: recorder) {
            _ = person.value(forKey: "age")
            _ = person.value(forKeyPath: "wallet.balance")
        }
        XCTAssertEqual(recorder.notes, [])
    }
}
