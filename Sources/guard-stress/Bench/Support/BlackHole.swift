import GuardCore

/// Keeps measured work from being optimised away or hoisted out of its loop.
///
/// Values go in and out through an atomic word: the optimizer cannot know what `opaque` returns or prove that what
/// `consume` takes is unused, so loops built on them do their work once per iteration.
enum BlackHole {
    private static let cell = AtomicCell(0)

    /// The word behind ``consume(_:)``, for loops that must publish a value on every iteration at the cost of one
    /// plain store: the optimizer cannot tell what else the store might change, so it cannot hoist reads past it.
    static var word: AtomicWord { cell.word }

    /// Takes `value` in a way the optimizer must keep.
    @inline(never)
    static func consume(_ value: Int) {
        cell.word.store(UInt64(bitPattern: Int64(value)), ordering: .relaxed)
    }

    /// Returns `value`, which the optimizer cannot see through (`opaque(1)` is not a constant to it).
    @inline(never)
    static func opaque(_ value: Int) -> Int {
        cell.word.store(UInt64(bitPattern: Int64(value)), ordering: .relaxed)
        return Int(truncatingIfNeeded: Int64(bitPattern: cell.word.load(ordering: .relaxed)))
    }
}
