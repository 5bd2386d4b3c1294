import GuardCoreAtomics

/// Atomic words stored inline at the start of a class instance, so the hottest atomics (an object's "anyone
/// observing?" mask, a registration's state) cost no extra allocation and no pointer chase.
///
/// A class that uses it declares its first stored properties as `gca_word`s, touches them only through
/// ``word(_:of:)``, and is a root class (no superclass adds stored properties before them). Instances never move,
/// so the addresses stay valid for the instance's lifetime. `InlineAtomicWordsTests` checks the layout of every
/// class that relies on this.
@usableFromInline
package enum InlineAtomicWords {
    /// A view of leading word number `index` of `object`.
    @inlinable @inline(__always)
    package static func word(_ index: Int, of object: AnyObject) -> AtomicWord {
        let first = _getUnsafePointerToStoredProperties(object).assumingMemoryBound(to: gca_word.self)
        return AtomicWord(first + index)
    }
}
