import GuardCore

/// The observer of one controller slot. It owns its controller (the FBKVOController shape: the observer keeps
/// the controller, the controller holds the observer weakly) and, for notifications that arrive through its own
/// `observeValue` (raw KVO, and the guard's forwarding variant), routes each one to the registration it belongs to by
/// its context pointer.
public final class StressObserver: KeyValueObserver, @unchecked Sendable {
    /// Unique within a process.
    public let id: Int
    private let lock = Lock()
    private var currentController: ControllerHandle?
    private var routes: [Int: DeliverySink] = [:]
    private let onDeinit: @Sendable (Int) -> Void
    private let onUnrouted: @Sendable () -> Void

    /// `onUnrouted` runs for every notification whose context pointer no registration was made with.
    init(id: Int, onDeinit: @escaping @Sendable (Int) -> Void, onUnrouted: @escaping @Sendable () -> Void = {}) {
        self.id = id
        self.onDeinit = onDeinit
        self.onUnrouted = onUnrouted
        SchedulePoints.created(self)
    }

    deinit {
        // An explorer counts the step that runs the deinit as writing the observer's life, and the step that ends it
        // (where the controller it owned loses its owner: stored properties go right after this body) as writing the
        // controller's.
        SchedulePoints.access(self, .lifetime, .write)
        onDeinit(id)
        if let currentController { SchedulePoints.access(currentController, .lifetime, .write) }
    }

    /// The controller this observer owns now, kept by the caller to the end of its operation (as an explorer counts
    /// it).
    var controller: ControllerHandle? {
        let handle = ControlledHook.withLockMode(.shared) { lock.withLock { currentController } }
        if let handle { SchedulePoints.access(handle, .lifetime, .hold) }
        return handle
    }

    /// The id of the controller this observer owns now, if any (no reference to it leaves the lock).
    var controllerID: Int? {
        ControlledHook.withLockMode(.shared) { lock.withLock { currentController?.id } }
    }

    /// Replaces the controller; the previous one is released once nobody else is using it. Returns the previous, whose
    /// reference the caller takes over (and, in an explored run, says when it drops it).
    @discardableResult
    func replaceController(with handle: ControllerHandle?) -> ControllerHandle? {
        let previous = lock.withLock {
            let previous = currentController
            currentController = handle
            return previous
        }
        if let previous { SchedulePoints.access(previous, .lifetime, .write) }
        return previous
    }

    /// A context pointer unique to `sink` (its identity), registered so that notifications arriving with it through
    /// ``observeValue(forKeyPath:of:change:context:)`` reach `sink`. The route keeps `sink` for the observer's life.
    public func routingContext(to sink: DeliverySink) -> UnsafeMutableRawPointer? {
        let context = Int(bitPattern: UInt(bitPattern: ObjectIdentifier(sink)))
        lock.withLock { routes[context] = sink }
        return UnsafeMutableRawPointer(bitPattern: context)
    }

    /// KVO callback: forwards to the registration named by `context`.
    public func observeValue(
        forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
    ) {
        let sink = lock.withLock { routes[Int(bitPattern: context)] }
        guard let sink, let object = object as? StressObject else { return onUnrouted() }
        sink.deliver(observer: self, object: object, change: change)
    }
}
