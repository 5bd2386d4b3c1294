@testable import FaultInjector
@testable import FaultInjectorTools
import XCTest

/// ddmin: a 1-minimal failing part, in order, without repeated or whole-input tests.
final class DeltaDebuggingTests: XCTestCase {
    func testItFindsTheTwoElementsAFailureNeeds() {
        var tests: [[Int]] = []
        let result = DeltaDebugging.minimize(Array(1...8)) { part in
            tests.append(part)
            return part.contains(3) && part.contains(7)
        }
        XCTAssertEqual(result, [3, 7])
        XCTAssertFalse(tests.contains(Array(1...8)), "the whole input is known to fail and never tested")
        XCTAssertEqual(Set(tests).count, tests.count, "no part is tested twice")
        XCTAssertLessThan(tests.count, 40)
    }

    func testASingleCulpritIsFoundAmongMany() {
        let result = DeltaDebugging.minimize(Array(0..<100)) { $0.contains(42) }
        XCTAssertEqual(result, [42])
    }

    func testTheResultIsOneMinimalAndKeepsTheOrder() {
        // Fails when at least three multiples of five remain, in increasing order.
        let input = [30, 1, 25, 2, 10, 3, 5, 4, 15, 20]
        func fails(_ part: [Int]) -> Bool {
            let fives = part.filter { $0 % 5 == 0 }
            return fives.count >= 3
        }
        let result = DeltaDebugging.minimize(input, stillFails: fails)
        XCTAssertTrue(fails(result))
        XCTAssertEqual(result.count, 3, "\(result)")
        for index in result.indices {
            var smaller = result
            smaller.remove(at: index)
            XCTAssertFalse(fails(smaller), "removing \(result[index]) from \(result) should pass")
        }
        let positions = result.map { input.firstIndex(of: $0)! }
        XCTAssertEqual(positions, positions.sorted(), "the order of the input is kept")
    }

    func testTheEmptyPartIsTriedOnlyWhenAllowed() {
        var sawEmpty = false
        let kept = DeltaDebugging.minimize([1, 2, 3]) { part in
            if part.isEmpty { sawEmpty = true }
            return true
        }
        XCTAssertFalse(sawEmpty)
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(DeltaDebugging.minimize([1, 2, 3], allowsEmpty: true) { _ in true }, [])
    }

    func testNothingSmallerFailsLeavesTheInputAsItIs() {
        XCTAssertEqual(DeltaDebugging.minimize([4, 5, 6]) { $0.count == 3 }, [4, 5, 6])
        XCTAssertEqual(DeltaDebugging.minimize([9]) { _ in true }, [9])
        XCTAssertEqual(DeltaDebugging.minimize([Int]()) { _ in true }, [])
    }

    func testStoppingEarlyKeepsTheSmallestFailingPartFoundSoFar() {
        var tests = 0
        let result = DeltaDebugging.minimize(Array(0..<64), shouldStop: { tests >= 3 }) { part in
            tests += 1
            return part.contains(5)
        }
        XCTAssertEqual(tests, 3)
        XCTAssertTrue(result.contains(5))
        XCTAssertLessThan(result.count, 64)
        XCTAssertGreaterThan(result.count, 1, "stopped before the end")
    }

    func testTheSplitCoversEveryPositionOnce() {
        for count in 1...20 {
            for parts in 1...25 {
                let ranges = DeltaDebugging.split(count, into: parts)
                XCTAssertEqual(ranges.flatMap { Array($0) }, Array(0..<count))
                XCTAssertFalse(ranges.contains { $0.isEmpty })
            }
        }
    }
}
