import GuardCoreAtomics

/// Atomic words stored inline at the start of a class instance, so the hottest atomics (an object's "anyone
/// observing?" mask, a registration's state) cost no extra allocation and no pointer chase.
///
/// The layout rule, stated here once for every class that uses it: declare the words as the class's first stored
/// properties, in the order of their indexes, and touch them only through ``word(_:of:)``. The class is a root
/// class, so no superclass adds stored properties before them (a subclass uses its superclass's words: ``Observance``
/// leaves one to its subclasses). Instances never move, so the addresses stay valid for the instance's lifetime. A
/// class may keep an inline lock right after its words (``ObservationTable``), reached by the same offset arithmetic.
/// Reordering those properties breaks the class silently: `InlineAtomicWordsTests` checks the layout of every class
/// that relies on this.
@usableFromInline
package enum InlineAtomicWords {
    /// A view of leading word number `index` of `object`.
    @inlinable @inline(__always)
    package static func word(_ index: Int, of object: AnyObject) -> AtomicWord {
        let first = _getUnsafePointerToStoredProperties(object).assumingMemoryBound(to: gca_word.self)
        return AtomicWord(first + index)
    }
}
