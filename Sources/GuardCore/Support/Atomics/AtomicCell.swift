import GuardCoreAtomics

/// A heap-allocated atomic 64-bit word, for process-wide counters and flags and for per-object state that is not
/// on a hot path. Its address never changes, which atomics require.
@usableFromInline
package final class AtomicCell: @unchecked Sendable {
    /// The only stored property: the word itself, reached through its address (see ``InlineAtomicWords``).
    private var storage = gca_word()

    /// Creates a cell holding `initialValue`.
    package init(_ initialValue: UInt64 = 0) {
        word.store(initialValue, ordering: .relaxed)
    }

    /// Creates a cell holding a signed integer.
    package convenience init(int initialValue: Int) {
        self.init(UInt64(bitPattern: Int64(initialValue)))
    }

    /// The word.
    @inlinable
    package var word: AtomicWord {
        InlineAtomicWords.word(0, of: self)
    }
}
