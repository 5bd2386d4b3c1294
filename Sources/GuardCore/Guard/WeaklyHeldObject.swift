/// What a ``GuardRegistration`` keeps of an object it holds weakly, out of line: the registrations of strongly held
/// objects (the default) then pay for no weak reference at all, neither when they are made nor when they go.
final class WeaklyHeldObject: @unchecked Sendable {
    /// The object while it lives.
    weak var object: AnyObject?
    /// A ``KVOObject``'s observation table, which belongs to that object for good: it recognizes the object while its
    /// deinit runs (its weak references already read `nil` then, and it may unobserve itself there), and never takes
    /// a new object at its address for it (see ``GuardRegistration/isAbout(_:)``). Taken when the object has one
    /// (never created for this: making a table changes what other threads' changes of the object do); guarded by the
    /// controller's lock, and never touched by two threads at once, so the run-time exclusivity checks would only
    /// cost time.
    @exclusivity(unchecked) var table: ObservationTable?

    /// Holds `object` weakly, with its observation table if it already has one.
    init(_ object: AnyObject) {
        self.object = object
        if let table = KVOObject.existingTableReference(of: object) {
            self.table = table.takeUnretainedValue()
        }
    }
}
