import GuardCore

/// One bulk removal the harness made (`unobserveAll()`, `unobserve(object)`, releasing a controller) and the
/// registrations of its controller (of its object, for `unobserve(object)`) whose handlers were released on the
/// calling thread while it ran, in the order they were released. The guard promises to release them in the order
/// they were made; ``ReleaseOrderChecks`` judges that.
public struct BulkReleaseRecord: Sendable {
    /// The operation that made the removal (the one whose thread released a controller, for a controller's release),
    /// or -1 for the release of a controller at the end of the run.
    public var operation: Int
    /// The controller whose registrations it removed.
    public var controller: Int
    /// For `unobserve(object)`: the object; `nil` when every registration of the controller went.
    public var object: Int?
    /// The registrations (their observe operations' ids) whose handlers were released, in order.
    public var released: [Int]
}

/// The bulk removals running on the calling thread, innermost last: a registration's handler released on a thread
/// is listed under the innermost one it belongs to (a removal nested in another one's releases, such as an object's
/// deinit that removes its own registrations, has its own list).
enum BulkRelease {
    private final class Stack {
        var open: [BulkReleaseRecord] = []
    }

    private static let stack = ThreadLocal { Stack() }

    /// Runs `body` (the removal) with its list open, and returns the list.
    static func during(
        operation: Int, controller: Int, object: Int? = nil, _ body: () -> Void
    ) -> BulkReleaseRecord {
        let stack = stack.value
        stack.open.append(BulkReleaseRecord(operation: operation, controller: controller, object: object, released: []))
        body()
        return stack.open.removeLast()
    }

    /// Registration `registration` (of `controller`, observing `object`) released its handler on this thread: listed
    /// under the innermost open removal it belongs to, if any. Takes no lock and reads no clock.
    static func noteReleased(registration: Int, controller: Int, object: Int) {
        guard let stack = stack.valueIfCreated, !stack.open.isEmpty else { return }
        for index in stack.open.indices.reversed() {
            let open = stack.open[index]
            guard open.controller == controller, open.object == nil || open.object == object else { continue }
            stack.open[index].released.append(registration)
            return
        }
    }
}
