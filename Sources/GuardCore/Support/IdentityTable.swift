import GuardCoreAtomics

/// A hash table from object identities to values: the guard's per-object bookkeeping, found by the object's address
/// with one multiplication instead of a full `Hasher` run.
///
/// Open addressing with linear probing over a power-of-two number of slots, at most three quarters of them keyed.
/// Object addresses are not chosen by an adversary, so a multiplicative hash of the address is enough. Each slot has
/// a one-byte tag in a separate, dense array (empty, or seven bits of the hash), so probing for a new identity or past
/// other identities reads tags, which stay in cache even when the table is large, and reads a slot only on a likely
/// match.
///
/// An identity whose value is set to `nil` through ``update(_:_:)`` keeps its slot, vacated: an object whose last
/// registration goes and comes back (an observe/unobserve loop) finds its slot again instead of emptying and
/// re-inserting it. Vacated slots are dropped when the table runs out of room (by rebuilding it at the same size when
/// enough of them are vacated, else by growing), so they never outnumber a quarter of the slots for long and lookups
/// stay short. ``removeValue(for:)`` empties the slot for good, shifting the entries after it back, so no slot is
/// ever a tombstone.
///
/// A class, so the storage is reached without a copy-on-write check: its owner holds it in one place and locks around
/// every use (it is not thread-safe, except ``prefetchHome(of:)``), and hands the whole table over by reference (a bulk
/// removal keeps an emptied table to release after unlocking).
final class IdentityTable<Value> {
    // Leading words: see `InlineAtomicWords`. They publish where the storage lies (see `IdentityTableStorageLayout`), for `prefetchHome(of:)` to read without
    // the owner's lock; the table writes them whenever its storage moves.
    private var publishedTagsAddress = gca_word()
    private var publishedSlotsAddress = gca_word()
    private var publishedShift = gca_word()

    /// One slot: the identity's address (0: empty) and its value (`nil`: vacated, or empty).
    private struct Slot {
        var key: UInt
        var value: Value?
    }

    // Touched only by the owner, under its lock (see above), so the run-time exclusivity checks would only cost time.
    /// `capacity` slots, all initialized, or `nil` while there are none.
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Slot>?
    /// One tag per slot: 0 for an empty slot, else 0x80 and the top seven bits of the key's hash.
    @exclusivity(unchecked) private var tags: UnsafeMutablePointer<UInt8>?
    /// log2 of the number of slots, or 0 while there are none.
    @exclusivity(unchecked) private var shift = 0
    /// How many identities have a value.
    @exclusivity(unchecked) private(set) var count = 0
    /// How many slots are keyed: `count` and the vacated ones.
    @exclusivity(unchecked) private var keyed = 0

    /// An empty table; it allocates nothing until the first insertion.
    init() {}

    deinit {
        guard let slots, let tags else { return }
        // Only a slot with a value holds anything to release: a table whose values were all taken out (or set to
        // `nil`) has none, and skips a pass over its slots.
        if count > 0 { slots.deinitialize(count: capacity) }
        slots.deallocate()
        tags.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// The number of slots.
    private var capacity: Int { shift == 0 ? 0 : 1 &<< shift }

    /// The value for `id`, if any.
    func value(for id: ObjectIdentifier) -> Value? {
        guard case .found(let index) = search(for: key(id)) else { return nil }
        return slots.unsafelyUnwrapped[index].value
    }

    /// Calls `body` with the value for `id` (`nil` if none) to read and change; a `nil` left there removes `id` (its
    /// slot stays, vacated, for `id` to find again).
    @inline(__always)
    func update<Result>(_ id: ObjectIdentifier, _ body: (inout Value?) -> Result) -> Result {
        let key = key(id)
        switch search(for: key) {
        case .found(let index):
            let slot = slots.unsafelyUnwrapped + index
            let had = slot.pointee.value != nil
            let result = body(&slot.pointee.value)
            let has = slot.pointee.value != nil
            if had != has { count += has ? 1 : -1 }
            return result
        case .absent(let vacancy):
            var value: Value?
            let result = body(&value)
            guard let value else { return result }
            if let vacancy, (keyed + 1) * 4 <= capacity * 3 {
                // Where the search ended: the first empty slot of the key's probe run, so no second search.
                occupy(vacancy, key: key, value: value)
            } else {
                insert(value, for: key)
            }
            return result
        }
    }

    /// Removes the value for `id` (and its slot) and returns it.
    @discardableResult
    func removeValue(for id: ObjectIdentifier) -> Value? {
        guard case .found(let index) = search(for: key(id)) else { return nil }
        let value = slots.unsafelyUnwrapped[index].value
        removeSlot(at: index)
        return value
    }

    /// Removes the values for which `shouldRemove` is true (releasing them here), keeping the table's capacity.
    func removeAll(where shouldRemove: (Value) -> Bool) {
        guard let slots else { return }
        var kept: [(key: UInt, value: Value)] = []
        for index in 0..<capacity {
            if let value = slots[index].value, !shouldRemove(value) { kept.append((slots[index].key, value)) }
        }
        guard kept.count < count || keyed > count else { return }
        rebuild(shift: shift, with: kept)
    }

    /// Empties the table and frees its storage, handing each value to `body` (in no particular order) with the
    /// reference the table held: moved out, not copied, so emptying a table costs no reference counting. The table is
    /// already empty while `body` runs.
    func takeAllValues(_ body: (consuming Value) -> Void) {
        guard let slots, let tags else { return }
        let slotCount = capacity
        self.slots = nil
        self.tags = nil
        shift = 0
        count = 0
        keyed = 0
        publishStorageLayout()
        for index in 0..<slotCount {
            if let value = (slots + index).pointee.value.take() { body(value) }
        }
        // Every slot is empty now (a key and `nil`): nothing left to deinitialize.
        slots.deallocate()
        tags.deallocate()
    }

    // MARK: Prefetching

    /// The current storage layout.
    var storageLayout: IdentityTableStorageLayout {
        IdentityTableStorageLayout(
            tagsAddress: UInt(bitPattern: tags), slotsAddress: UInt(bitPattern: slots), shift: shift)
    }

    /// The storage layout last published for ``prefetchHome(of:)``: the current one, for a caller holding the owner's
    /// lock.
    var publishedStorageLayout: IdentityTableStorageLayout {
        IdentityTableStorageLayout(
            tagsAddress: UInt(InlineAtomicWords.word(0, of: self).load(ordering: .relaxed)),
            slotsAddress: UInt(InlineAtomicWords.word(1, of: self).load(ordering: .relaxed)),
            shift: Int(InlineAtomicWords.word(2, of: self).load(ordering: .relaxed)))
    }

    /// ``prefetchHome(of:in:)`` in this table as last published. Thread-safe: callable without the owner's lock (the
    /// words of the published layout are read one by one, so a reader may see a mix of an old and a new layout, which
    /// is harmless for a hint).
    func prefetchHome(of id: ObjectIdentifier) {
        Self.prefetchHome(of: id, in: publishedStorageLayout)
    }

    /// Publishes the current storage layout for ``prefetchHome(of:)``.
    private func publishStorageLayout() {
        let layout = storageLayout
        InlineAtomicWords.word(0, of: self).store(UInt64(layout.tagsAddress), ordering: .relaxed)
        InlineAtomicWords.word(1, of: self).store(UInt64(layout.slotsAddress), ordering: .relaxed)
        InlineAtomicWords.word(2, of: self).store(UInt64(layout.shift), ordering: .relaxed)
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
        Int(truncatingIfNeeded: hash &>> UInt64(64 &- shift))
    }

    /// The tag of a key with hash `hash`: never 0.
    @inline(__always)
    private static func tag(ofHash hash: UInt64) -> UInt8 {
        0x80 | UInt8(truncatingIfNeeded: hash >> 57)
    }

    /// Where a search for `key` ends: the slot keyed with it (its value may be vacated), or the first empty slot of
    /// its probe run (`nil` while the table has no slots).
    private enum SearchResult {
        case found(Int)
        case absent(vacancy: Int?)
    }

    private func search(for key: UInt) -> SearchResult {
        guard let tags, let slots else { return .absent(vacancy: nil) }
        let hash = Self.hash(key)
        let tag = Self.tag(ofHash: hash)
        let mask = (1 &<< shift) &- 1
        var index = home(ofHash: hash)
        while true {
            let found = tags[index]
            if found == 0 { return .absent(vacancy: index) }
            if found == tag, slots[index].key == key { return .found(index) }
            index = (index &+ 1) & mask
        }
    }

    private func insert(_ value: Value, for key: UInt) {
        if (keyed + 1) * 4 > capacity * 3 { makeRoom() }
        let tags = tags.unsafelyUnwrapped
        let mask = capacity - 1
        var index = home(ofHash: Self.hash(key))
        while tags[index] != 0 { index = (index + 1) & mask }
        occupy(index, key: key, value: value)
    }

    /// Puts `key` and `value` in the empty slot at `index`, the first empty slot of the key's probe run.
    @inline(__always)
    private func occupy(_ index: Int, key: UInt, value: Value) {
        tags.unsafelyUnwrapped[index] = Self.tag(ofHash: Self.hash(key))
        slots.unsafelyUnwrapped[index] = Slot(key: key, value: value)
        count += 1
        keyed += 1
    }

    /// Empties the slot at `index` and shifts back the entries of the probe run after it.
    private func removeSlot(at index: Int) {
        let tags = tags.unsafelyUnwrapped
        let slots = slots.unsafelyUnwrapped
        if slots[index].value != nil { count -= 1 }
        keyed -= 1
        let mask = capacity - 1
        var hole = index
        var next = (index + 1) & mask
        while tags[next] != 0 {
            let home = home(ofHash: Self.hash(slots[next].key))
            // The entry at `next` may move to the hole if its home is not strictly after the hole (cyclically).
            let distanceToNext = (next - home) & mask
            let distanceToHole = (hole - home) & mask
            if distanceToHole < distanceToNext {
                swap(&slots[hole], &slots[next])
                tags[hole] = tags[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = Slot(key: 0, value: nil)
        tags[hole] = 0
    }

    /// Makes room for one more keyed slot: drops the vacated slots if they are at least a quarter of the keyed ones
    /// (the same number of slots then holds the values with room to spare), otherwise doubles the slots.
    private func makeRoom() {
        var entries: [(key: UInt, value: Value)] = []
        entries.reserveCapacity(count)
        if let slots {
            for index in 0..<capacity {
                if let value = slots[index].value { entries.append((slots[index].key, value)) }
            }
        }
        let vacated = keyed - count
        rebuild(shift: shift > 0 && vacated * 4 >= keyed ? shift : max(3, shift + 1), with: entries)
    }

    /// Replaces the storage with `1 << shift` slots holding `entries` (distinct keys), and no vacated slot.
    private func rebuild(shift newShift: Int, with entries: [(key: UInt, value: Value)]) {
        let newCapacity = 1 << newShift
        let newSlots = UnsafeMutablePointer<Slot>.allocate(capacity: newCapacity)
        newSlots.initialize(repeating: Slot(key: 0, value: nil), count: newCapacity)
        let newTags = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newTags.initialize(repeating: 0, count: newCapacity)
        if let slots, let tags {
            slots.deinitialize(count: capacity)
            slots.deallocate()
            tags.deallocate()
        }
        slots = newSlots
        tags = newTags
        shift = newShift
        count = 0
        keyed = 0
        publishStorageLayout()
        for entry in entries { insert(entry.value, for: entry.key) }
    }
}

/// Where an ``IdentityTable``'s storage lies: enough to find the memory where an identity's search starts without
/// touching the table. A snapshot, published by the table (under its owner's lock, see
/// ``IdentityTable/prefetchHome(of:)``) for threads that do not hold the lock.
struct IdentityTableStorageLayout: Equatable {
    var tagsAddress: UInt = 0
    var slotsAddress: UInt = 0
    var shift = 0
}
