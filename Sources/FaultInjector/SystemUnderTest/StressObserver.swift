import GuardCore

/// The observer of one controller slot. It owns its controller (the FBKVOController shape: the observer keeps
/// the controller, the controller holds the observer weakly) and, for raw KVO, routes runtime callbacks to the
/// registration they belong to by context.
public final class StressObserver: KeyValueObserver, @unchecked Sendable {
    /// Unique within a process.
    public let id: Int
    private let lock = Lock()
    private var currentController: ControllerHandle?
    private var rawRoutes: [Int: DeliverySink] = [:]
    private let onDeinit: @Sendable (Int) -> Void

    init(id: Int, onDeinit: @escaping @Sendable (Int) -> Void) {
        self.id = id
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit(id)
    }

    /// The controller this observer owns now.
    var controller: ControllerHandle? {
        lock.withLock { currentController }
    }

    /// Replaces the controller; the previous one is released once nobody else is using it. Returns the previous.
    @discardableResult
    func replaceController(with handle: ControllerHandle?) -> ControllerHandle? {
        lock.withLock {
            let previous = currentController
            currentController = handle
            return previous
        }
    }

    /// Remembers where raw callbacks with `context` go.
    public func route(context: Int, to sink: DeliverySink) {
        lock.withLock { rawRoutes[context] = sink }
    }

    /// Raw KVO callback: forwards to the registration named by `context`.
    public func observeValue(
        forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
    ) {
        let sink = lock.withLock { rawRoutes[Int(bitPattern: context)] }
        guard let sink, let object = object as? StressObject else { return }
        sink.deliver(observer: self, object: object, change: change)
    }
}
