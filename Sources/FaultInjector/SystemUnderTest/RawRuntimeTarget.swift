import GuardCore

/// GuardCore's runtime used directly, the way an app uses Foundation's KVO without a guard: every observe is an
/// `addObserver`, every unobserve a `removeObserver` (the most recent registration, or the most recent one with a
/// context), nothing is removed on teardown. Running a scenario against it counts the crashes the guard prevents.
public struct RawRuntimeTarget: SystemUnderTest {
    /// `raw`.
    public let name = "raw"
    /// Raw KVO promises none of the guard's semantics.
    public let promisesGuardSemantics = false

    /// Creates the target.
    public init() {}

    /// A bookkeeping-free stand-in that calls the runtime directly (raw KVO reports no diagnostics).
    public func makeController(
        for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
    ) -> any StressController {
        RawStressController(observer: observer)
    }
}

/// Raw KVO behind the ``StressController`` shape. It remembers which (object, key path) pairs it ever added, so its
/// unobserve-all can do what naive code does (remove each of them once), and, per context number, the context
/// pointers it registered with, so a removal naming a context number can name the pointer of the most recent one.
final class RawStressController: StressController, @unchecked Sendable {
    private struct Added: Hashable {
        /// The object's ``StressObject/id``, not its address: an address freed and reused by a later object would
        /// make the later object inherit the earlier one's pairs, differently in every process, and a controlled
        /// run would not repeat.
        let object: Int
        let keyPath: String
    }

    private struct Contexted: Hashable {
        /// The object's ``StressObject/id`` (see ``Added``).
        let object: Int
        let keyPath: String
        let context: Int
    }

    private weak var observer: StressObserver?
    private let lock = Lock()
    private var added: [Added: WeakObject] = [:]
    private var contextPointers: [Contexted: [UnsafeMutableRawPointer?]] = [:]

    init(observer: StressObserver) {
        self.observer = observer
    }

    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall
    ) -> ObserveOutcome {
        guard let observer else { return .invalid }
        remember(object, keyPath)
        // The sink's identity is the context: unique per registration for as long as the route keeps it alive.
        object.addObserver(observer, forKeyPath: keyPath, options: options, context: observer.routingContext(to: sink))
        return .unknown
    }

    /// Registers with a context pointer of this registration's own (so the notification reaches its sink), and
    /// remembers it under the context number for a removal that names the number.
    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, context: Int, sink: DeliverySink,
        call: StressCall
    ) -> ObserveOutcome {
        guard let observer else { return .invalid }
        remember(object, keyPath)
        let pointer = observer.routingContext(to: sink)
        lock.withLock {
            contextPointers[Contexted(object: object.id, keyPath: keyPath, context: context), default: []]
                .append(pointer)
        }
        object.addObserver(observer, forKeyPath: keyPath, options: options, context: pointer)
        return .unknown
    }

    func observe(
        _ object: StressObject, typedKey: StressTypedKey, options: KeyValueObservingOptions, sink: DeliverySink,
        call: StressCall
    ) -> ObserveOutcome {
        guard let observer else { return .invalid }
        if let name = typedKey.named?.name { remember(object, name) }
        let context = observer.routingContext(to: sink)
        switch typedKey {
        case .k0: object.addObserver(observer, forKeyPath: \.k0, options: options, context: context)
        case .k1: object.addObserver(observer, forKeyPath: \.k1, options: options, context: context)
        case .k2: object.addObserver(observer, forKeyPath: \.k2, options: options, context: context)
        case .sum: object.addObserver(observer, forKeyPath: \.sum, options: options, context: context)
        case .peerForced: object.addObserver(observer, forKeyPath: \.peer!.k0, options: options, context: context)
        case .peerOptional: object.addObserver(observer, forKeyPath: \.peer?.k0, options: options, context: context)
        }
        return .unknown
    }

    func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
        guard let observer else { return .invalid }
        object.removeObserver(observer, forKeyPath: keyPath)
        return .unknown
    }

    /// Removes the most recent registration made with context number `context` (by its pointer). With none left, it
    /// names a pointer no registration has, as code that lost track of its contexts would: the runtime reports it.
    func unobserve(_ object: StressObject, keyPath: String, context: Int, call: StressCall) -> UnobserveOutcome {
        guard let observer else { return .invalid }
        let key = Contexted(object: object.id, keyPath: keyPath, context: context)
        let pointer = lock.withLock { contextPointers[key]?.popLast() } ?? UnsafeMutableRawPointer(bitPattern: context)
        object.removeObserver(observer, forKeyPath: keyPath, context: pointer)
        return .unknown
    }

    func unobserve(_ object: StressObject, typedKey: StressTypedKey, call: StressCall) -> UnobserveOutcome {
        guard let observer else { return .invalid }
        switch typedKey {
        case .k0: object.removeObserver(observer, forKeyPath: \.k0)
        case .k1: object.removeObserver(observer, forKeyPath: \.k1)
        case .k2: object.removeObserver(observer, forKeyPath: \.k2)
        case .sum: object.removeObserver(observer, forKeyPath: \.sum)
        case .peerForced: object.removeObserver(observer, forKeyPath: \.peer!.k0)
        case .peerOptional: object.removeObserver(observer, forKeyPath: \.peer?.k0)
        }
        return .unknown
    }

    func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome {
        guard let observer else { return .invalid }
        let id = object.id
        let keyPaths = lock.withLock { added.keys.filter { $0.object == id }.map(\.keyPath) }
        for keyPath in keyPaths.sorted() {
            object.removeObserver(observer, forKeyPath: keyPath)
        }
        return .unknown
    }

    func unobserveAll(call: StressCall) -> Int? {
        guard let observer else { return nil }
        let pairs = lock.withLock {
            added.compactMap { entry in (entry.value.object as? StressObject).map { ($0, entry.key.keyPath) } }
        }
        for (object, keyPath) in pairs.sorted(by: { ($0.0.id, $0.1) < ($1.0.id, $1.1) }) {
            object.removeObserver(observer, forKeyPath: keyPath)
        }
        return nil
    }

    private func remember(_ object: StressObject, _ keyPath: String) {
        lock.withLock { added[Added(object: object.id, keyPath: keyPath)] = WeakObject(object) }
    }
}
