import GuardCoreAtomics

/// A view of one atomic 64-bit word at a fixed address: inside an ``AtomicCell``, or among the leading stored
/// properties of a class instance (see ``InlineAtomicWords``).
///
/// Orderings are named as in the Synchronization module. Every operation is an inlined C11 atomic, understood by
/// ThreadSanitizer and available on every platform the package supports. Booleans, counters, small enums and
/// pointers are stored as 64-bit patterns.
@frozen @usableFromInline
package struct AtomicWord {
    /// Orderings for loads.
    @usableFromInline
    package enum LoadOrdering { case relaxed, acquiring }
    /// Orderings for stores.
    @usableFromInline
    package enum StoreOrdering { case relaxed, releasing }
    /// Orderings for read-modify-write operations.
    @usableFromInline
    package enum UpdateOrdering { case relaxed, acquiringAndReleasing }

    @usableFromInline let word: UnsafeMutablePointer<gca_word>

    /// A view of the word at `word`, which must stay allocated while the view is used.
    @inlinable
    package init(_ word: UnsafeMutablePointer<gca_word>) {
        self.word = word
    }

    /// The current value.
    @inlinable @inline(__always)
    package func load(ordering: LoadOrdering) -> UInt64 {
        switch ordering {
        case .relaxed: return gca_load_relaxed(word)
        case .acquiring: return gca_load_acquire(word)
        }
    }

    /// Replaces the value.
    @inlinable @inline(__always)
    package func store(_ value: UInt64, ordering: StoreOrdering) {
        switch ordering {
        case .relaxed: gca_store_relaxed(word, value)
        case .releasing: gca_store_release(word, value)
        }
    }

    /// Replaces the value and returns the previous one.
    @inlinable @inline(__always)
    package func exchange(_ value: UInt64) -> UInt64 {
        gca_exchange_acq_rel(word, value)
    }

    /// Stores `desired` if the value is `expected`; returns whether it did and the value found.
    @inlinable @inline(__always)
    package func compareExchange(expected: UInt64, desired: UInt64) -> (exchanged: Bool, original: UInt64) {
        var found = expected
        let exchanged = gca_compare_exchange_acq_rel(word, &found, desired)
        return (exchanged, found)
    }

    /// Adds `delta` (wrapping, so a negative `Int` delta subtracts) and returns the new value.
    @inlinable @inline(__always) @discardableResult
    package func add(_ delta: Int, ordering: UpdateOrdering) -> Int {
        let bits = UInt64(bitPattern: Int64(delta))
        let previous: UInt64
        switch ordering {
        case .relaxed: previous = gca_fetch_add_relaxed(word, bits)
        case .acquiringAndReleasing: previous = gca_fetch_add_acq_rel(word, bits)
        }
        return Int(truncatingIfNeeded: Int64(bitPattern: previous &+ bits))
    }

    /// The value as a signed integer.
    @inlinable @inline(__always)
    package func loadInt(ordering: LoadOrdering) -> Int {
        Int(truncatingIfNeeded: Int64(bitPattern: load(ordering: ordering)))
    }

    /// Stores a signed integer.
    @inlinable @inline(__always)
    package func storeInt(_ value: Int, ordering: StoreOrdering) {
        store(UInt64(bitPattern: Int64(value)), ordering: ordering)
    }
}
