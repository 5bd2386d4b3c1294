/// References collected while a lock is held, to be released only after unlocking: releasing one may be the last
/// reference and run a deinit, which must never run under GuardCore's locks (it may call back in).
///
/// Empty, it holds no storage at all, so the hot paths that usually collect nothing (an observe or an unobserve
/// that finds no registration of a dead object, no sweep of the removal history) pay no reference counting for it.
struct DeferredReleases {
    private var references: [AnyObject]?

    /// No references.
    init() {}

    /// Keeps `reference` until ``release()``.
    mutating func append(_ reference: AnyObject) {
        if references == nil { references = [] }
        references!.append(reference)
    }

    /// Keeps every reference `other` keeps, after this one's, and empties `other`.
    mutating func append(contentsOf other: inout DeferredReleases) {
        guard let taken = other.references.take() else { return }
        if references == nil {
            references = taken
        } else {
            references!.append(contentsOf: taken)
        }
    }

    /// Releases the references in the order they were appended (call it after unlocking), and empties this.
    mutating func release() {
        guard var taken = references.take() else { return }
        taken.reverse()
        while !taken.isEmpty { _ = taken.removeLast() }
    }
}
