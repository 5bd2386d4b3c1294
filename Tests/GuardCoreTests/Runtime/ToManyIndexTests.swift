import Foundation
import GuardCore
import XCTest

/// The ordered to-many helpers check their indexes before they announce anything: indexes that do not fit are the
/// misuse `invalidIndexes` (Foundation raises), and the helper then announces and changes nothing.
final class ToManyIndexTests: XCTestCase {
    private var person: Person!
    private var recorder: Recorder!

    override func setUp() {
        super.setUp()
        person = Person()
        person.items = ["a", "b", "c"]
        recorder = Recorder()
        person.addObserver(recorder, forKeyPath: "items", options: [.prior, .old, .new])
    }

    override func tearDown() {
        person.removeObserver(recorder, forKeyPath: "items")
        person = nil
        recorder = nil
        super.tearDown()
    }

    /// Runs `edit` under the report policy and asserts it was refused as one `invalidIndexes` misuse with
    /// `exceptionName` and `problem` in its message, with no notification and the array unchanged.
    private func assertRefused(
        exceptionName: String, problem: String, file: StaticString = #filePath, line: UInt = #line,
        _ edit: () -> Bool
    ) {
        var did = true
        let misuses = recordingMisuse { did = edit() }
        XCTAssertFalse(did, "the helper says it did nothing", file: file, line: line)
        XCTAssertEqual(misuses.map(\.kind), [.invalidIndexes], file: file, line: line)
        XCTAssertEqual(misuses.first?.exceptionName, exceptionName, file: file, line: line)
        XCTAssertEqual(misuses.first?.keyPath, "items", file: file, line: line)
        XCTAssertEqual(misuses.first?.object, rendered(person), file: file, line: line)
        XCTAssertTrue(
            misuses.first?.message.contains(problem) ?? false, "\(misuses.first?.message ?? "no misuse")",
            file: file, line: line)
        XCTAssertEqual(person.items, ["a", "b", "c"], "nothing changed", file: file, line: line)
        XCTAssertEqual(recorder.count, 0, "nothing announced, not even the prior notification", file: file, line: line)
    }

    func testInsertingWithMoreElementsThanIndexesIsRefused() {
        assertRefused(
            exceptionName: "NSInvalidArgumentException",
            problem: "-[NSMutableArray insertObjects:atIndexes:]: count of array (2) differs from count of index set (1)"
        ) {
            person.insert(["x", "y"], at: IndexSet([1]), into: \.items)
        }
    }

    func testInsertingPastTheEndIsRefused() {
        // With three elements, the first insertion may go at most at 3, the second at most at 4.
        assertRefused(exceptionName: "NSRangeException", problem: "index 5 in index set beyond bounds [0 .. 4]") {
            person.insert(["x", "y"], at: IndexSet([3, 5]), into: \.items)
        }
    }

    func testInsertingRightAtTheEndIsAllowed() {
        let did = recordingMisuse {
            XCTAssertTrue(person.insert(["x", "y"], at: IndexSet([3, 4]), into: \.items))
        }
        XCTAssertEqual(did, [])
        XCTAssertEqual(person.items, ["a", "b", "c", "x", "y"])
        XCTAssertEqual(recorder.changes.map(\.kind), [.insertion, .insertion], "prior and final notification")
    }

    func testANegativeIndexIsRefused() {
        assertRefused(exceptionName: "NSRangeException", problem: "index -1 in index set beyond bounds [0 .. 2]") {
            person.removeElements(at: IndexSet([-1, 0]), from: \.items)
        }
        assertRefused(exceptionName: "NSRangeException", problem: "index -2 in index set beyond bounds [0 .. 3]") {
            person.insert(["x"], at: IndexSet([-2]), into: \.items)
        }
    }

    func testRemovingPastTheEndIsRefused() {
        assertRefused(
            exceptionName: "NSRangeException",
            problem: "-[NSMutableArray removeObjectsAtIndexes:]: index 3 in index set beyond bounds [0 .. 2]"
        ) {
            person.removeElements(at: IndexSet([0, 3]), from: \.items)
        }
    }

    func testRemovingFromAnEmptyArraySaysSo() {
        person.items = []
        recorder.reset()
        var did = true
        let misuses = recordingMisuse { did = person.removeElements(at: IndexSet([0]), from: \.items) }
        XCTAssertFalse(did)
        XCTAssertEqual(misuses.map(\.kind), [.invalidIndexes])
        XCTAssertTrue(misuses.first?.message.contains("index 0 in index set beyond bounds for empty array") ?? false)
        XCTAssertEqual(recorder.count, 0)
    }

    func testReplacingWithFewerElementsThanIndexesIsRefused() {
        assertRefused(
            exceptionName: "NSInvalidArgumentException",
            problem: "-[NSMutableArray replaceObjectsAtIndexes:withObjects:]: count of array (1) differs from count "
                + "of index set (2)"
        ) {
            person.replaceElements(at: IndexSet([0, 1]), with: ["z"], in: \.items)
        }
    }

    func testReplacingPastTheEndIsRefused() {
        assertRefused(exceptionName: "NSRangeException", problem: "index 7 in index set beyond bounds [0 .. 2]") {
            person.replaceElements(at: IndexSet([1, 7]), with: ["y", "z"], in: \.items)
        }
    }

    func testARefusedEditLeavesNoChangeOpen() {
        // The refusal announced nothing, so nothing waits for a `didChange`: the next change is an ordinary one,
        // and a stray `didChange` afterwards is unpaired.
        _ = recordingMisuse { person.removeElements(at: IndexSet([9]), from: \.items) }
        let misuses = recordingMisuse {
            person.items = ["d"]
            person.didChange(.removal, valuesAt: IndexSet([9]), forKey: "items")
        }
        XCTAssertEqual(misuses.map(\.kind), [.unpairedDidChange])
        XCTAssertEqual(recorder.changes.map(\.kind), [.setting, .setting], "prior and final notification of the set")
        XCTAssertEqual(recorder.changes.last?.newValue(as: [String].self), ["d"])
    }

    func testRemovingSeveralRunsRemovesExactlyThoseElements() {
        person.items = ["0", "1", "2", "3", "4", "5", "6", "7"]
        recorder.reset()
        let misuses = recordingMisuse {
            XCTAssertTrue(person.removeElements(at: IndexSet([0, 1, 3, 5, 6]), from: \.items))
        }
        XCTAssertEqual(misuses, [])
        XCTAssertEqual(person.items, ["2", "4", "7"])
        XCTAssertEqual(recorder.changes.last?.oldValue(as: [String].self), ["0", "1", "3", "5", "6"])
        XCTAssertEqual(recorder.changes.last?.indexes, IndexSet([0, 1, 3, 5, 6]))
    }

    func testAnEmptyIndexSetIsAValidEditOfNothing() {
        let misuses = recordingMisuse {
            XCTAssertTrue(person.insert([String](), at: IndexSet(), into: \.items))
            XCTAssertTrue(person.removeElements(at: IndexSet(), from: \.items))
            XCTAssertTrue(person.replaceElements(at: IndexSet(), with: [String](), in: \.items))
        }
        XCTAssertEqual(misuses, [])
        XCTAssertEqual(person.items, ["a", "b", "c"])
    }
}
