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
