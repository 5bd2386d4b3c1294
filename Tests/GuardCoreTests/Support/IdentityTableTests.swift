import XCTest

@testable import GuardCore

/// `IdentityTable` (the guard's per-object bookkeeping) behaves like a dictionary keyed by object identity, through
/// growth and through removals that shift probe runs back.
final class IdentityTableTests: XCTestCase {
    private final class Key {}

    /// The layout a table publishes for prefetching follows its storage: empty while it has none, new after it grows
    /// (and round-trips through the cell other threads read it from).
    func testStorageLayoutFollowsTheStorageAndRoundTripsThroughItsCell() {
        let keys = (0..<100).map { _ in Key() }
        var table = IdentityTable<Int>()
        XCTAssertEqual(table.storageLayout, IdentityTableStorageLayout(), "no storage yet")
        table.update(ObjectIdentifier(keys[0])) { $0 = 0 }
        let small = table.storageLayout
        XCTAssertNotEqual(small.tagsAddress, 0)
        XCTAssertNotEqual(small.slotsAddress, 0)
        XCTAssertEqual(small.shift, 3)
        for (index, key) in keys.enumerated() { table.update(ObjectIdentifier(key)) { $0 = index } }
        let grown = table.storageLayout
        XCTAssertGreaterThan(grown.shift, small.shift)
        XCTAssertNotEqual(grown.slotsAddress, small.slotsAddress, "growing moves the slots")

        let cell = StorageLayoutCell()
        XCTAssertEqual(cell.layout, IdentityTableStorageLayout())
        cell.publish(grown)
        XCTAssertEqual(cell.layout, grown)
    }

    /// A prefetch is only a hint: from a stale layout, a layout of freed storage, or nonsense addresses, it neither
    /// faults nor changes the table.
    func testPrefetchingFromAStaleOrBogusLayoutIsHarmless() {
        let keys = (0..<50).map { _ in Key() }
        var table = IdentityTable<Int>()
        table.update(ObjectIdentifier(keys[0])) { $0 = 0 }
        let stale = table.storageLayout
        for (index, key) in keys.enumerated() { table.update(ObjectIdentifier(key)) { $0 = index } }
        let bogus = [
            stale,
            IdentityTableStorageLayout(tagsAddress: 0x10, slotsAddress: 0x20, shift: 40),
            IdentityTableStorageLayout(tagsAddress: UInt.max - 64, slotsAddress: UInt.max, shift: 63),
            IdentityTableStorageLayout(),
        ]
        for layout in bogus {
            for key in keys { IdentityTable<Int>.prefetchHome(of: ObjectIdentifier(key), in: layout) }
        }
        for (index, key) in keys.enumerated() {
            XCTAssertEqual(table.value(for: ObjectIdentifier(key)), index)
        }
    }

    func testMatchesADictionaryThroughRandomInsertionsUpdatesAndRemovals() {
        let keys = (0..<600).map { _ in Key() }
        var table = IdentityTable<Int>()
        var reference: [ObjectIdentifier: Int] = [:]
        var generator = SplitMixForTests(seed: 7)
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
                var values: [Int] = []
                table.forEachValue { values.append($0) }
                XCTAssertEqual(values.sorted(), reference.values.sorted())
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
}
