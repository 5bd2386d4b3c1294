import Foundation
import GuardCore
import XCTest

final class SmokeTests: XCTestCase {
    func testSettingNotifiesWithOldAndNew() throws {
        let person = Person()
        let recorder = Recorder()
        assertNoMisuse {
            person.addObserver(recorder, forKeyPath: "age", options: [.old, .new])
            person.age = 5
            person.removeObserver(recorder, forKeyPath: "age")
            person.age = 6
        }
        XCTAssertEqual(recorder.count, 1)
        let change = try XCTUnwrap(recorder.changes.first)
        XCTAssertEqual(change.kind, .setting)
        XCTAssertEqual(change.oldValue(as: Int.self), 0)
        XCTAssertEqual(change.newValue(as: Int.self), 5)
        XCTAssertEqual(change.keyPath, "age")
    }
}
