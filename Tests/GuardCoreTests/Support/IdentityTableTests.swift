import XCTest

@testable import GuardCore

/// `IdentityTable` (the guard's per-object bookkeeping) behaves like a dictionary keyed by object identity, through
/// growth and through removals that shift probe runs back.
final class IdentityTableTests: XCTestCase {
    private final class Key {}

    func testMatchesADictionaryThroughRandomInsertionsUpdatesAndRemovals() {
        let keys = (0..<600).map { _ in Key() }
        var table = IdentityTable<Int>()
        var reference: [ObjectIdentifier: Int] = [:]
        var generator = SplitMix(seed: 7)
        for step in 0..<40_000 {
            let id = ObjectIdentifier(keys[Int(generator.next() % UInt64(keys.count))])
            switch generator.next() % 4 {
            case 0, 1:
                table.update(id) { $0 = step }
                reference[id] = step
            case 2:
                XCTAssertEqual(table.removeValue(for: id), reference.removeValue(forKey: id), "step \(step)")
            default:
                // Reading through `update` and leaving `nil` removes.
                let removes = generator.next() % 2 == 0
                let seen = table.update(id) { value -> Int? in
                    let seen = value
                    if removes { value = nil }
                    return seen
                }
                XCTAssertEqual(seen, reference[id], "step \(step)")
                if removes { reference[id] = nil }
            }
            XCTAssertEqual(table.count, reference.count, "step \(step)")
            if step % 997 == 0 {
                for key in keys {
                    XCTAssertEqual(table.value(for: ObjectIdentifier(key)), reference[ObjectIdentifier(key)])
                }
                XCTAssertEqual(table.values.sorted(), reference.values.sorted())
            }
        }
    }

    func testRemoveAllWhereKeepsTheRest() {
        let keys = (0..<100).map { _ in Key() }
        var table = IdentityTable<Int>()
        for (index, key) in keys.enumerated() { table.update(ObjectIdentifier(key)) { $0 = index } }
        table.removeAll { $0 % 3 == 0 }
        XCTAssertEqual(table.count, 66)
        for (index, key) in keys.enumerated() {
            XCTAssertEqual(table.value(for: ObjectIdentifier(key)), index % 3 == 0 ? nil : index)
        }
    }

    func testAnEmptyTableFindsNothingAndRemovesNothing() {
        var table = IdentityTable<String>()
        let key = Key()
        XCTAssertTrue(table.isEmpty)
        XCTAssertNil(table.value(for: ObjectIdentifier(key)))
        XCTAssertNil(table.removeValue(for: ObjectIdentifier(key)))
        XCTAssertEqual(table.update(ObjectIdentifier(key)) { $0 }, nil, "leaving nil inserts nothing")
        XCTAssertTrue(table.isEmpty)
    }

    /// SplitMix64, so the sequence is the same in every run.
    private struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
