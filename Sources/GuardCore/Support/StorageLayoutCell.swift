import GuardCoreAtomics

/// The last published ``IdentityTableStorageLayout`` of one table: written by the table's owner under its lock
/// whenever the table's storage moves, read without the lock by threads that want to prefetch before they lock.
///
/// Three atomic words on the heap, owned by the one value (it cannot be copied, and frees them when it goes), so
/// reading it costs no reference counting. The words are written and read one by one, so a reader may see a mix of an
/// old and a new layout; that is harmless, because the layout is only ever used for prefetch hints, which never fault.
struct StorageLayoutCell: ~Copyable, @unchecked Sendable {
    private let words: UnsafeMutablePointer<gca_word>

    /// A cell holding an empty layout.
    init() {
        words = .allocate(capacity: 3)
        words.initialize(repeating: gca_word(), count: 3)
    }

    deinit {
        words.deinitialize(count: 3)
        words.deallocate()
    }

    /// The layout last published (an empty one at first).
    var layout: IdentityTableStorageLayout {
        IdentityTableStorageLayout(
            tagsAddress: UInt(AtomicWord(words).load(ordering: .relaxed)),
            slotsAddress: UInt(AtomicWord(words + 1).load(ordering: .relaxed)),
            shift: Int(AtomicWord(words + 2).load(ordering: .relaxed)))
    }

    /// Publishes `layout` if it differs from the last one.
    func publish(_ layout: IdentityTableStorageLayout) {
        guard layout != self.layout else { return }
        AtomicWord(words).store(UInt64(layout.tagsAddress), ordering: .relaxed)
        AtomicWord(words + 1).store(UInt64(layout.slotsAddress), ordering: .relaxed)
        AtomicWord(words + 2).store(UInt64(layout.shift), ordering: .relaxed)
    }
}
