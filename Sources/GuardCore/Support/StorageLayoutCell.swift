import GuardCoreAtomics

/// The last published ``IdentityTable/StorageLayout`` of one table: written by the table's owner under its lock
/// whenever the table's storage moves, read without the lock by threads that want to prefetch before they lock.
///
/// The three words are written and read one by one, so a reader may see a mix of an old and a new layout; that is
/// harmless, because the layout is only ever used for prefetch hints, which never fault.
final class StorageLayoutCell: @unchecked Sendable {
    // Read and written only through `InlineAtomicWords`, by position: keep them the first stored properties.
    private var tagsAddressWord = gca_word()
    private var slotsAddressWord = gca_word()
    private var shiftWord = gca_word()

    /// The layout last published (an empty one at first).
    var layout: IdentityTableStorageLayout {
        IdentityTableStorageLayout(
            tagsAddress: UInt(InlineAtomicWords.word(0, of: self).load(ordering: .relaxed)),
            slotsAddress: UInt(InlineAtomicWords.word(1, of: self).load(ordering: .relaxed)),
            shift: Int(InlineAtomicWords.word(2, of: self).load(ordering: .relaxed)))
    }

    /// Publishes `layout` if it differs from the last one.
    func publish(_ layout: IdentityTableStorageLayout) {
        guard layout != self.layout else { return }
        InlineAtomicWords.word(0, of: self).store(UInt64(layout.tagsAddress), ordering: .relaxed)
        InlineAtomicWords.word(1, of: self).store(UInt64(layout.slotsAddress), ordering: .relaxed)
        InlineAtomicWords.word(2, of: self).store(UInt64(layout.shift), ordering: .relaxed)
    }
}
