import XCTest

@testable import GuardCore

/// `IdentityTable` (the guard's per-object bookkeeping) behaves like a dictionary keyed by object identity, through
/// growth and through removals that shift probe runs back.
final class IdentityTableTests: XCTestCase {
    private final class Key {}

    /// The layout a table publishes for prefetching (which other threads read) follows its storage: empty while it
    /// has none, new after it grows.
    func testPublishedStorageLayoutFollowsTheStorage() {
        let keys = (0..<100).map { _ in Key() }
        let table = IdentityTable<Int>()
        XCTAssertEqual(table.storageLayout, IdentityTableStorageLayout(), "no storage yet")
        XCTAssertEqual(table.publishedStorageLayout, IdentityTableStorageLayout())
        table.update(ObjectIdentifier(keys[0])) { $0 = 0 }
        let small = table.storageLayout
        XCTAssertEqual(table.publishedStorageLayout, small)
        XCTAssertNotEqual(small.tagsAddress, 0)
        XCTAssertNotEqual(small.slotsAddress, 0)
        XCTAssertEqual(small.shift, 3)
        for (index, key) in keys.enumerated() { table.update(ObjectIdentifier(key)) { $0 = index } }
        let grown = table.storageLayout
        XCTAssertGreaterThan(grown.shift, small.shift)
        XCTAssertNotEqual(grown.slotsAddress, small.slotsAddress, "growing moves the slots")
        XCTAssertEqual(table.publishedStorageLayout, grown)
    }

    /// A prefetch is only a hint: from a stale layout, a layout of freed storage, or nonsense addresses, it neither
    /// faults nor changes the table.
    func testPrefetchingFromAStaleOrBogusLayoutIsHarmless() {
        let keys = (0..<50).map { _ in Key() }
        let table = IdentityTable<Int>()
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
        for key in keys { table.prefetchHome(of: ObjectIdentifier(key)) }
        for (index, key) in keys.enumerated() {
            XCTAssertEqual(table.value(for: ObjectIdentifier(key)), index)
        }
    }

    func testMatchesADictionaryThroughRandomInsertionsUpdatesAndRemovals() {
        let keys = (0..<600).map { _ in Key() }
        let table = IdentityTable<Int>()
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
                // With the counts equal, every key's value matching leaves no room for a value under another key.
                for key in keys {
                    XCTAssertEqual(table.value(for: ObjectIdentifier(key)), reference[ObjectIdentifier(key)])
                }
            }
        }
    }

    /// An identity whose value is set to `nil` keeps its slot, vacated: found again without an insertion, counted as
    /// absent meanwhile; vacated slots of identities that never come back are dropped when the table runs out of room,
    /// so a stream of short-lived objects does not grow it.
    func testVacatedSlotsAreFoundAgainAndDroppedInsteadOfGrowingTheTable() {
        let table = IdentityTable<Int>()
        let resident = Key()
        table.update(ObjectIdentifier(resident)) { $0 = 1 }
        let layout = table.storageLayout
        for round in 0..<1_000 {
            table.update(ObjectIdentifier(resident)) { $0 = nil }
            XCTAssertTrue(table.isEmpty)
            XCTAssertNil(table.value(for: ObjectIdentifier(resident)))
            table.update(ObjectIdentifier(resident)) { $0 = round }
            XCTAssertEqual(table.count, 1)
        }
        XCTAssertEqual(table.storageLayout, layout, "the same slot, found again: no new storage")

        // 10,000 objects, each with a value for a while and then none, never more than 5 at once.
        var live: [Key] = []
        for index in 0..<10_000 {
            let key = Key()
            table.update(ObjectIdentifier(key)) { $0 = index }
            live.append(key)
            if live.count > 5 { table.update(ObjectIdentifier(live.removeFirst())) { $0 = nil } }
            XCTAssertEqual(table.count, live.count + 1, "object \(index)")
        }
        XCTAssertLessThanOrEqual(table.storageLayout.shift, 4, "at most 16 slots for at most 6 values")
        XCTAssertEqual(table.value(for: ObjectIdentifier(resident)), 999)
        for key in live { XCTAssertNotNil(table.value(for: ObjectIdentifier(key))) }
        var values: [Int] = []
        table.takeAllValues { values.append($0) }
        XCTAssertEqual(values.count, 6, "vacated slots hold no value")
    }

    /// `takeAllValues(_:)` hands every value over exactly once, with the table's reference (it keeps none), and
    /// leaves the table empty with no storage, already while the values are handed over.
    func testTakeAllValuesHandsEverythingOverAndKeepsNothing() {
        let table = IdentityTable<Key>()
        var ids: [ObjectIdentifier] = []
        var watchers: [() -> Key?] = []
        for _ in 0..<40 {
            let key = Key()
            ids.append(ObjectIdentifier(key))
            watchers.append { [weak key] in key }
            table.update(ObjectIdentifier(key)) { $0 = key }
        }
        // Vacated slots hold nothing and hand over nothing.
        for id in ids.prefix(5) { table.update(id) { $0 = nil } }
        XCTAssertTrue(watchers.prefix(5).allSatisfy { $0() == nil }, "a vacated slot released its value")
        XCTAssertTrue(watchers.dropFirst(5).allSatisfy { $0() != nil }, "the table holds the others")
        var handed: [ObjectIdentifier] = []
        table.takeAllValues { value in
            XCTAssertTrue(table.isEmpty, "empty while the values are handed over")
            XCTAssertEqual(table.storageLayout, IdentityTableStorageLayout())
            XCTAssertEqual(table.publishedStorageLayout, IdentityTableStorageLayout(), "published: no storage")
            handed.append(ObjectIdentifier(value))
        }
        XCTAssertEqual(handed.count, 35, "each value once")
        XCTAssertEqual(Set(handed), Set(ids.dropFirst(5)))
        XCTAssertTrue(watchers.allSatisfy { $0() == nil }, "the table kept no reference to a value it handed over")
        XCTAssertNil(table.value(for: ids[10]))
        // Usable again afterwards.
        let again = Key()
        table.update(ObjectIdentifier(again)) { $0 = again }
        XCTAssertTrue(table.value(for: ObjectIdentifier(again)) === again)
    }

    func testRemoveAllWhereKeepsTheRest() {
        let keys = (0..<100).map { _ in Key() }
        let table = IdentityTable<Int>()
        for (index, key) in keys.enumerated() { table.update(ObjectIdentifier(key)) { $0 = index } }
        table.removeAll { $0 % 3 == 0 }
        XCTAssertEqual(table.count, 66)
        for (index, key) in keys.enumerated() {
            XCTAssertEqual(table.value(for: ObjectIdentifier(key)), index % 3 == 0 ? nil : index)
        }
    }

    func testAnEmptyTableFindsNothingAndRemovesNothing() {
        let table = IdentityTable<String>()
        let key = Key()
        XCTAssertTrue(table.isEmpty)
        XCTAssertNil(table.value(for: ObjectIdentifier(key)))
        XCTAssertNil(table.removeValue(for: ObjectIdentifier(key)))
        XCTAssertEqual(table.update(ObjectIdentifier(key)) { $0 }, nil, "leaving nil inserts nothing")
        XCTAssertTrue(table.isEmpty)
    }
}
