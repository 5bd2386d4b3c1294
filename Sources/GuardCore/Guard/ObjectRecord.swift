/// What a controller keeps about one object identity: the object's live registrations and what was removed from it
/// before, side by side in one slot of the controller's table, so that one lookup serves both. An `unobserve` takes
/// the registration out and records the removal in the same slot, and an object observed again after a removal finds
/// its slot still there instead of inserting it anew.
struct ObjectRecord {
    /// The newest of the object's live registrations, which links to the older ones
    /// (``GuardRegistration/nextOnSameObject``); `nil` when there are none.
    var newest: GuardRegistration?
    /// What was removed from the object (or from a dead object that had its address) before; see ``RemovalHistory``.
    var removals: RemovalHistory.Entry?

    /// Whether the record holds nothing, so its slot can go.
    var isEmpty: Bool {
        newest == nil && removals == nil
    }
}
