import GuardCore

/// GuardCore's runtime used directly, the way an app uses Foundation's KVO without a guard: every observe is an
/// `addObserver`, every unobserve a `removeObserver` (most recent registration, no bookkeeping), nothing is removed
/// on teardown. Running a scenario against it counts the crashes the guard prevents.
public struct RawRuntimeTarget: SystemUnderTest {
    /// `raw`.
    public let name = "raw"
    /// Raw KVO promises none of the guard's semantics.
    public let promisesGuardSemantics = false

    /// Creates the target.
    public init() {}

    /// A bookkeeping-free stand-in that calls the runtime directly.
    public func makeController(for observer: StressObserver, retainsObjects: Bool) -> any StressController {
        RawStressController(observer: observer)
    }
}

/// Raw KVO behind the ``StressController`` shape. It remembers only which (object, key path) pairs it ever added,
/// so its unobserve-all can do what naive code does: remove each of them once.
final class RawStressController: StressController, @unchecked Sendable {
    private struct Added: Hashable {
        /// The object's ``StressObject/id``, not its address: an address freed and reused by a later object would
        /// make the later object inherit the earlier one's pairs, differently in every process, and a controlled
        /// run would not repeat.
        let object: Int
        let keyPath: String
    }

    private weak var observer: StressObserver?
    private let lock = Lock()
    private var added: [Added: WeakObject] = [:]

    init(observer: StressObserver) {
        self.observer = observer
    }

    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink
    ) -> ObserveOutcome {
        guard let observer else { return .invalid }
        lock.withLock { added[Added(object: object.id, keyPath: keyPath)] = WeakObject(object) }
        // The sink's identity is the context: unique per registration for as long as the route keeps it alive.
        let context = Int(bitPattern: UInt(bitPattern: ObjectIdentifier(sink)))
        observer.route(context: context, to: sink)
        object.addObserver(
            observer, forKeyPath: keyPath, options: options, context: UnsafeMutableRawPointer(bitPattern: context))
        return .unknown
    }

    func unobserve(_ object: StressObject, keyPath: String) -> UnobserveOutcome {
        guard let observer else { return .invalid }
        object.removeObserver(observer, forKeyPath: keyPath)
        return .unknown
    }

    func unobserve(_ object: StressObject) -> UnobserveOutcome {
        guard let observer else { return .invalid }
        let id = object.id
        let keyPaths = lock.withLock { added.keys.filter { $0.object == id }.map(\.keyPath) }
        for keyPath in keyPaths.sorted() {
            object.removeObserver(observer, forKeyPath: keyPath)
        }
        return .unknown
    }

    func unobserveAll() {
        guard let observer else { return }
        let pairs = lock.withLock {
            added.compactMap { entry in (entry.value.object as? StressObject).map { ($0, entry.key.keyPath) } }
        }
        for (object, keyPath) in pairs.sorted(by: { ($0.0.id, $0.1) < ($1.0.id, $1.1) }) {
            object.removeObserver(observer, forKeyPath: keyPath)
        }
    }
}
