import Dispatch
import XCTest

@testable import GuardCore

/// `ReadMostlyCache` (per-class tables and key names, read without a process-wide lock) gives each key the value made
/// for it, makes it once, caches nothing for a key whose `make` gives nothing, and starts over when full, whatever
/// order the keys are asked in: the same key again, a few keys in turn (the per-thread ring of recent entries),
/// and more keys in turn than that ring holds.
final class ReadMostlyCacheTests: XCTestCase {
    /// Counts the values made, per key.
    private final class MakeCounter: @unchecked Sendable {
        var made: [String: Int] = [:]

        func make(_ key: String) -> String {
            made[key, default: 0] += 1
            return "value of \(key)"
        }
    }

    func testEveryKeyGetsItsOwnValueMadeOnceInWhateverOrderKeysAreAsked() {
        let cache = ReadMostlyCache<String, String>()
        let counter = MakeCounter()
        // 1 key again and again, 3 keys in turn (fewer than the ring holds), 20 in turn (more), then at random.
        let keys = (0..<20).map { "key\($0)" }
        var order = Array(repeating: keys[0], count: 5)
        for _ in 0..<5 { order += keys.prefix(3) }
        for _ in 0..<3 { order += keys }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 { order.append(keys.randomElement(using: &generator)!) }
        for key in order {
            XCTAssertEqual(cache.value(for: key) { counter.make(key) }, "value of \(key)")
        }
        XCTAssertEqual(counter.made, Dictionary(uniqueKeysWithValues: keys.map { ($0, 1) }), "each value made once")
        XCTAssertEqual(cache.sharedCount, keys.count)
        XCTAssertEqual(cache.startedOverCount, 0)
    }

    func testAKeyWhoseMakeGivesNothingIsAskedAgainAndCachesNothing() {
        let cache = ReadMostlyCache<String, String>()
        var calls = 0
        for _ in 0..<3 {
            XCTAssertNil(cache.valueIfPossible(for: "absent") { calls += 1; return nil })
        }
        XCTAssertEqual(calls, 3)
        XCTAssertEqual(cache.sharedCount, 0)
        XCTAssertEqual(cache.valueIfPossible(for: "present") { "made" }, "made")
        XCTAssertEqual(cache.valueIfPossible(for: "present") { XCTFail("made again"); return "again" }, "made")
    }

    func testAFullCacheStartsOverAndStillGivesEachKeyItsValue() {
        let capacity = 4
        let cache = ReadMostlyCache<String, String>(capacity: capacity)
        let counter = MakeCounter()
        let keys = (0..<(capacity * 3)).map { "key\($0)" }
        for _ in 0..<3 {
            for key in keys {
                XCTAssertEqual(cache.value(for: key) { counter.make(key) }, "value of \(key)")
                XCTAssertLessThanOrEqual(cache.sharedCount, capacity)
            }
        }
        XCTAssertGreaterThan(cache.startedOverCount, 0, "more keys than it holds: it started over")
        XCTAssertTrue(counter.made.values.allSatisfy { $0 > 1 }, "values dropped by starting over are made again")
    }

    func testThreadsAskingTogetherEachGetTheValueOfTheirKey() {
        let cache = ReadMostlyCache<String, String>(capacity: 16)
        let keys = (0..<24).map { "key\($0)" }
        let mismatches = Protected(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<500 {
                let key = keys[(worker * 7 + round) % keys.count]
                if cache.value(for: key, orMake: { "value of \(key)" }) != "value of \(key)" {
                    mismatches.withValue { $0 += 1 }
                }
            }
        }
        XCTAssertEqual(mismatches.withValue { $0 }, 0)
    }
}
