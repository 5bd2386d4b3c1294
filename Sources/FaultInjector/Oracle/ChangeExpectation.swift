/// What a registration of one key of one object must hear of one change: the change kind, the old and new values
/// (for `items`, fingerprints of the changed elements), the changed positions, and whether a registration live
/// throughout the change must hear it at all.
struct ChangeExpectation {
    let kind: UInt8
    let old: Int
    let new: Int
    let indexMask: UInt64
    /// Whether the values are known: a change of the linked object's leaf (`k0`, `gauge`) while the link was changing
    /// may or may not be heard, and a link while a set of `gauge` on either middle object was under way read
    /// `link.gauge` before or after that set; their values are then unknown and not checked (whether a change must be
    /// heard at all is ``DeliveryChecks``' business; that a prior notification is followed by its change is checked
    /// either way).
    let isCertain: Bool

    /// The expectation for a registration of `key` on `object`, or `nil` if `change` does not affect it: a change of
    /// the key itself; of `k0` or `k1` for `sum`; of `link` for the keys read through it (the old and new leaf); or of
    /// the leaf (``StressKey/leaf``) on an object that `object` linked at an overlapping time.
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
            if let leaf = key.leaf, changed == .link {
                let (old, new) = leaf == .gauge ? (change.oldGauge, change.newGauge) : (change.oldLeaf, change.newLeaf)
                return ChangeExpectation(
                    kind: 1, old: old, new: new, indexMask: 0, isCertain: !index.mayChange(leaf, ofMiddlesOf: change))
            }
            return nil
        }
        guard let leaf = key.leaf, changed == leaf,
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
