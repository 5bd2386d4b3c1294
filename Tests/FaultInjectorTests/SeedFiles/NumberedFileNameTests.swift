@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import XCTest

/// ``NumberedFileName`` writes under the first name of its series that no file holds, never replacing one, and says
/// why when it cannot.
final class NumberedFileNameTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-numbered")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    private func name(_ number: Int) -> String {
        directory.file(number == 1 ? "f.txt" : "f-\(number).txt")
    }

    func testWritesTheFirstNameWhenItIsFree() throws {
        let path = try NumberedFileName.write(Data("new".utf8), numbers: 1...) { name($0) }
        XCTAssertEqual(path, name(1))
        XCTAssertEqual(try directory.contents(), ["f.txt"])
        XCTAssertEqual(FileManager.default.contents(atPath: path), Data("new".utf8))
    }

    func testSkipsTakenNamesAndReplacesNone() throws {
        try directory.write("one", to: "f.txt")
        try directory.write("two", to: "f-2.txt")
        try directory.write("four", to: "f-4.txt")
        let path = try NumberedFileName.write(Data("new".utf8), numbers: 1...) { name($0) }
        XCTAssertEqual(path, name(3), "the first free number, not one past the highest")
        XCTAssertEqual(FileManager.default.contents(atPath: name(1)), Data("one".utf8))
        XCTAssertEqual(FileManager.default.contents(atPath: name(2)), Data("two".utf8))
        XCTAssertEqual(FileManager.default.contents(atPath: name(3)), Data("new".utf8))
        XCTAssertEqual(FileManager.default.contents(atPath: name(4)), Data("four".utf8))
    }

    func testStartsAtTheFirstNumberGiven() throws {
        let path = try NumberedFileName.write(Data("new".utf8), numbers: 2...5) { name($0) }
        XCTAssertEqual(path, name(2), "the unnumbered name is not tried when 1 is not among the numbers")
        XCTAssertEqual(try directory.contents(), ["f-2.txt"])
    }

    func testEveryNameTakenThrowsTheLastNamesFileExists() throws {
        for number in 1...3 { try directory.write("\(number)", to: (name(number) as NSString).lastPathComponent) }
        XCTAssertThrowsError(try NumberedFileName.write(Data("new".utf8), numbers: 1...3) { name($0) }) { error in
            let failure = error as? FileWriteError
            XCTAssertEqual(failure?.fileExists, true, "\(error)")
            XCTAssertEqual(failure?.path, name(3))
        }
        XCTAssertEqual(try directory.contents(), ["f-2.txt", "f-3.txt", "f.txt"], "nothing was replaced or added")
        XCTAssertEqual(FileManager.default.contents(atPath: name(3)), Data("3".utf8))
    }

    func testAnotherFailureIsThrownAtOnce() throws {
        var tried: [Int] = []
        let missing = directory.file("no-such-directory")
        XCTAssertThrowsError(
            try NumberedFileName.write(Data("new".utf8), numbers: 1...) { number in
                tried.append(number)
                return (missing as NSString).appendingPathComponent("f-\(number).txt")
            }
        ) { error in
            XCTAssertEqual((error as? FileWriteError)?.fileExists, false, "\(error)")
        }
        XCTAssertEqual(tried, [1], "a failure that is not a taken name ends the search")
    }
}
