/// What a registration of one key of one object must hear of one change: the change kind, the old and new values
/// (for `items`, fingerprints of the changed elements), the changed positions, and whether a registration live
/// throughout the change must hear it at all.
struct ChangeExpectation {
    let kind: UInt8
    let old: Int
    let new: Int
    let indexMask: UInt64
    /// Whether a registration live throughout the change must hear it (a change of the linked object's `k0` while the
    /// link was changing may or may not be heard; with its values then unknown, they are not checked either).
    let isCertain: Bool

    /// The expectation for a registration of `key` on `object`, or `nil` if `change` does not affect it: a change of
    /// the key itself; of `k0` or `k1` for `sum`; of `link` for `link.k0` and `linked` (the old and new leaf); or of
    /// `k0` on an object that `object` linked at an overlapping time, for `link.k0` and `linked`.
    static func of(
        _ change: OperationRecord, forKey key: StressKey, on object: Int, index: HistoryIndex
    ) -> ChangeExpectation? {
        guard let changed = change.key else { return nil }
        if change.object == object {
            if changed == key {
                return ChangeExpectation(
                    kind: change.changeKind, old: change.oldValue, new: change.newValue, indexMask: change.indexMask,
                    isCertain: true)
            }
            if key == .sum, changed == .k0 || changed == .k1 {
                return ChangeExpectation(kind: 1, old: change.oldSum, new: change.newSum, indexMask: 0, isCertain: true)
            }
            if key.readsThroughLink, changed == .link {
                return ChangeExpectation(kind: 1, old: change.oldLeaf, new: change.newLeaf, indexMask: 0, isCertain: true)
            }
            return nil
        }
        guard key.readsThroughLink, changed == .k0,
            index.mayLink(object, change.object, between: change.call, and: change.ret)
        else { return nil }
        return ChangeExpectation(
            kind: 1, old: change.oldValue, new: change.newValue, indexMask: 0,
            isCertain: index.surelyLinks(object, change.object, from: change.call, to: change.ret))
    }

    /// Whether a notification of this change carries an old value when `.old` was asked for (an insertion has no old
    /// elements).
    var hasOld: Bool { kind != 2 }

    /// Whether a change notification carries a new value when `.new` was asked for (a removal has no new elements).
    var hasNew: Bool { kind != 3 }
}
