import GuardCoreAtomics

/// A hash table from object identities to values: the guard's per-object bookkeeping, found by the object's address
/// with one multiplication instead of a full `Hasher` run.
///
/// Open addressing with linear probing over a power-of-two number of slots, at most three quarters full; a removal
/// shifts the entries after it back, so no slot is ever a tombstone and lookups stay short. Object addresses are not
/// chosen by an adversary, so a multiplicative hash of the address is enough. Each slot has a one-byte tag in a
/// separate, dense array (empty, or seven bits of the hash), so probing for a new identity or past other identities
/// reads tags, which stay in cache even when the table is large, and reads a slot only on a likely match. Not
/// thread-safe (it is a value type; its owner locks around it).
struct IdentityTable<Value> {
    /// One slot: the identity's address (0: empty) and its value.
    private struct Slot {
        var key: UInt
        var value: Value?
    }

    private var slots: ContiguousArray<Slot> = []
    /// One tag per slot: 0 for an empty slot, else 0x80 and the top seven bits of the key's hash.
    private var tags: ContiguousArray<UInt8> = []
    /// log2 of `slots.count`, or 0 while there are none.
    private var shift = 0
    /// How many identities have a value.
    private(set) var count = 0

    /// An empty table; it allocates nothing until the first insertion.
    init() {}

    var isEmpty: Bool { count == 0 }

    /// The value for `id`, if any.
    func value(for id: ObjectIdentifier) -> Value? {
        guard let index = index(of: key(id)) else { return nil }
        return slots[index].value
    }

    /// Calls `body` with the value for `id` (`nil` if none) to read and change; a `nil` left there removes `id`.
    @inline(__always)
    mutating func update<Result>(_ id: ObjectIdentifier, _ body: (inout Value?) -> Result) -> Result {
        let key = key(id)
        switch search(for: key) {
        case .found(let index):
            let result = body(&slots[index].value)
            if slots[index].value == nil { removeSlot(at: index) }
            return result
        case .absent(let vacancy):
            var value: Value?
            let result = body(&value)
            guard let value else { return result }
            if let vacancy, (count + 1) * 4 <= slots.count * 3 {
                // Where the search ended: the first empty slot of the key's probe run, so no second search.
                occupy(vacancy, key: key, value: value)
            } else {
                insert(value, for: key)
            }
            return result
        }
    }

    /// Removes the value for `id` and returns it.
    @discardableResult
    mutating func removeValue(for id: ObjectIdentifier) -> Value? {
        guard let index = index(of: key(id)) else { return nil }
        let value = slots[index].value
        removeSlot(at: index)
        return value
    }

    /// Calls `body` with every value, in no particular order, without collecting them first.
    func forEachValue(_ body: (Value) -> Void) {
        for slot in slots {
            if let value = slot.value { body(value) }
        }
    }

    /// Removes the values for which `shouldRemove` is true (releasing them here), keeping the table's capacity.
    mutating func removeAll(where shouldRemove: (Value) -> Bool) {
        let kept = slots.filter { $0.key != 0 && !shouldRemove($0.value!) }
        guard kept.count < count else { return }
        for index in slots.indices {
            slots[index] = Slot(key: 0, value: nil)
            tags[index] = 0
        }
        count = 0
        for slot in kept { insert(slot.value!, for: slot.key) }
    }

    // MARK: Prefetching

    /// The current storage layout.
    var storageLayout: IdentityTableStorageLayout {
        guard shift > 0 else { return IdentityTableStorageLayout() }
        return IdentityTableStorageLayout(
            tagsAddress: tags.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) },
            slotsAddress: slots.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }, shift: shift)
    }

    /// Asks the processor to bring in the tag and the slot where the search for `id` starts in a table laid out as
    /// `layout`, so that a lookup or insertion made a little later (under the owner's lock) does not wait for
    /// memory: in a large table those are cache misses. A hint only: it reads and writes nothing and never faults,
    /// so a stale layout (the table grew or was replaced since) costs nothing but a useless hint.
    static func prefetchHome(of id: ObjectIdentifier, in layout: IdentityTableStorageLayout) {
        guard layout.shift > 0 else { return }
        let home = UInt(truncatingIfNeeded: hash(UInt(bitPattern: id)) >> UInt64(64 - layout.shift))
        gca_prefetch_for_write(UnsafeRawPointer(bitPattern: layout.tagsAddress &+ home))
        gca_prefetch_for_write(
            UnsafeRawPointer(bitPattern: layout.slotsAddress &+ home &* UInt(MemoryLayout<Slot>.stride)))
    }

    // MARK: Slots

    @inline(__always)
    private func key(_ id: ObjectIdentifier) -> UInt {
        UInt(bitPattern: id)
    }

    /// The hash of `key`: Fibonacci hashing of the address (whose low bits are alignment zeros).
    @inline(__always)
    private static func hash(_ key: UInt) -> UInt64 {
        UInt64(key) &* 0x9E37_79B9_7F4A_7C15
    }

    /// The home slot of a key with hash `hash`: its top `shift` bits.
    @inline(__always)
    private func home(ofHash hash: UInt64) -> Int {
        Int(truncatingIfNeeded: hash >> UInt64(64 - shift))
    }

    /// The tag of a key with hash `hash`: never 0.
    @inline(__always)
    private func tag(ofHash hash: UInt64) -> UInt8 {
        0x80 | UInt8(truncatingIfNeeded: hash >> 57)
    }

    private func index(of key: UInt) -> Int? {
        if case .found(let index) = search(for: key) { return index }
        return nil
    }

    /// Where a search for `key` ends: the slot that holds it, or the first empty slot of its probe run (`nil` while
    /// the table has no slots).
    private enum SearchResult {
        case found(Int)
        case absent(vacancy: Int?)
    }

    private func search(for key: UInt) -> SearchResult {
        guard shift > 0 else { return .absent(vacancy: nil) }
        let hash = Self.hash(key)
        let tag = tag(ofHash: hash)
        let mask = slots.count - 1
        var index = home(ofHash: hash)
        while true {
            let found = tags[index]
            if found == 0 { return .absent(vacancy: index) }
            if found == tag, slots[index].key == key { return .found(index) }
            index = (index + 1) & mask
        }
    }

    private mutating func insert(_ value: Value, for key: UInt) {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let mask = slots.count - 1
        var index = home(ofHash: Self.hash(key))
        while tags[index] != 0 { index = (index + 1) & mask }
        occupy(index, key: key, value: value)
    }

    /// Puts `key` and `value` in the empty slot at `index`, the first empty slot of the key's probe run.
    @inline(__always)
    private mutating func occupy(_ index: Int, key: UInt, value: Value) {
        tags[index] = tag(ofHash: Self.hash(key))
        slots[index] = Slot(key: key, value: value)
        count += 1
    }

    /// Empties the slot at `index` and shifts back the entries of the probe run after it.
    private mutating func removeSlot(at index: Int) {
        let mask = slots.count - 1
        var hole = index
        var next = (index + 1) & mask
        while tags[next] != 0 {
            let home = home(ofHash: Self.hash(slots[next].key))
            // The entry at `next` may move to the hole if its home is not strictly after the hole (cyclically).
            let distanceToNext = (next - home) & mask
            let distanceToHole = (hole - home) & mask
            if distanceToHole < distanceToNext {
                slots[hole] = slots[next]
                tags[hole] = tags[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = Slot(key: 0, value: nil)
        tags[hole] = 0
        count -= 1
    }

    private mutating func grow() {
        let old = slots
        shift = max(3, shift + 1)
        slots = ContiguousArray(repeating: Slot(key: 0, value: nil), count: 1 << shift)
        tags = ContiguousArray(repeating: 0, count: 1 << shift)
        count = 0
        for slot in old where slot.key != 0 {
            insert(slot.value!, for: slot.key)
        }
    }
}

/// Where an ``IdentityTable``'s storage lies: enough to find the memory where an identity's search starts without
/// touching the table. A snapshot, published by the table's owner (under its lock, see ``StorageLayoutCell``) for
/// threads that do not hold the lock.
struct IdentityTableStorageLayout: Equatable {
    var tagsAddress: UInt = 0
    var slotsAddress: UInt = 0
    var shift = 0
}
