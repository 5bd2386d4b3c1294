import GuardCore

/// The token API (`guardedObserve`, ``ObservationToken``) under the oracle: each observe makes a token, each
/// unobserve invalidates one.
///
/// Tokens have no controller to deduplicate or to tell a double removal from the removal of something never
/// registered, so the adapter keeps the table an app would keep (one token per object and key path, and what was
/// removed) and answers with the guard's results. What the oracle checks is then the token's own promises: `.initial`
/// exactly once before `guardedObserve` returns, each change exactly once while the token is valid, with the values
/// and prior notifications it asked for, nothing to a gone observer, and nothing leaked or misused. Once the adapter
/// answered a removal it passes nothing more on (as the guard's state machine does, which its answers mirror), so
/// that a token delivers nothing for a change made after `invalidate()` returned is checked by GuardCore's own tests
/// (`ObservationTokenTests`), not here.
public struct TokenTarget: SystemUnderTest {
    /// `token`.
    public let name = "token"
    /// The adapter answers with the guard's results.
    public let promisesGuardSemantics = true
    /// Every key but the dotted key paths (`link.k0`, `link.gauge`): the adapter checks that a key path can be observed and then reserves its table slot
    /// before the token exists, and a dotted key path can stop being observable in between (its middle object
    /// replaced by one without the leaf key), so a refused token would contradict what the reserved slot already
    /// answered to other callers. (The guard itself registers such a path anyway; teaching the adapter the same is a
    /// follow-up.)
    public let observableKeys = Set(StressKey.allCases.filter { !$0.isDotted })
    /// Where the tokens' diagnostics go (tokens report only invalid arguments).
    public let diagnostics: any DiagnosticSink

    /// Makes each token: `guardedObserve(keyPath:options:changeHandler:)` (a test may plant a variation of it).
    let makeToken: TokenStressController.MakeToken

    /// Creates the target.
    public init(diagnostics: any DiagnosticSink) {
        self.init(diagnostics: diagnostics) { object, keyPath, options, handler in
            object.guardedObserve(keyPath: keyPath, options: options, changeHandler: handler)
        }
    }

    /// Creates the target making its tokens with `makeToken`.
    init(diagnostics: any DiagnosticSink, makeToken: @escaping TokenStressController.MakeToken) {
        self.diagnostics = diagnostics
        self.makeToken = makeToken
    }

    /// A table of tokens for `observer`, holding observed objects strongly or weakly as asked.
    public func makeController(
        for observer: StressObserver, retainsObjects: Bool, diagnostics runDiagnostics: any DiagnosticSink
    ) -> any StressController {
        TokenStressController(observer: observer, retainsObjects: retainsObjects, makeToken: makeToken)
    }
}

/// One observer's tokens, keyed by (object, key path), with the guard's registration state machine: a slot is
/// reserved before its token exists, so an unobserve that runs while the token is being made (for example inside its
/// `.initial` handler) cancels it.
final class TokenStressController: StressController, @unchecked Sendable {
    /// An (object, key path), the key path told apart by its UTF-8 bytes as the guard tells keys apart.
    private struct Key: Hashable {
        let object: ObjectIdentifier
        let keyPath: [UInt8]

        init(object: ObjectIdentifier, keyPath: String) {
            self.object = object
            self.keyPath = Array(keyPath.utf8)
        }
    }

    /// One (object, key path): reserved, then active with its token, then gone.
    private final class Slot: @unchecked Sendable {
        enum State: UInt64 { case reserved, active, cancelled, removed }

        private let stateCell = AtomicCell(State.reserved.rawValue)
        /// Nonzero until the `.initial` notification was handed on (zero without `.initial`).
        private let initialPending: AtomicCell
        /// The thread making the observe call; the `.initial` notification arrives on it, before the call returns.
        private let observingThread = CurrentThread.identifier
        weak var object: StressObject?
        /// Set when the controller holds its objects strongly; cleared on removal (released outside the lock).
        var strongObject: StressObject?
        var token: ObservationToken?
        /// The slot's place in the order slots were reserved (set under the controller's lock).
        var sequence: UInt64 = 0

        init(object: StressObject, retains: Bool, initial: Bool) {
            self.object = object
            self.strongObject = retains ? object : nil
            self.initialPending = AtomicCell(initial ? 1 : 0)
        }

        var state: State {
            State(rawValue: stateCell.word.load(ordering: .acquiring)) ?? .removed
        }

        func set(_ state: State) {
            stateCell.word.store(state.rawValue, ordering: .releasing)
        }

        /// Whether the handler may deliver now. The `.initial` notification always goes on: the observe that makes it
        /// took effect before any removal that overlaps it, as with the guard.
        var delivers: Bool {
            if initialPending.word.load(ordering: .acquiring) != 0, CurrentThread.identifier == observingThread,
                initialPending.word.exchange(0) != 0
            {
                return true
            }
            let state = state
            return state == .reserved || state == .active
        }

        /// The observe call returned: no later notification is its `.initial` one.
        func observeReturned() {
            initialPending.word.store(0, ordering: .releasing)
        }
    }

    private weak var observer: StressObserver?
    private let retainsObjects: Bool
    private let lock = Lock()
    private var slots: [Key: Slot] = [:]
    private var removed: [Key: WeakObject] = [:]
    private var sweepThreshold = 64
    /// Numbers slots in the order they were reserved, so bulk removals end and release them in a reproducible order
    /// (the dictionary's order depends on object addresses, which differ from run to run).
    private var nextSequence: UInt64 = 0

    /// Makes a token observing `keyPath` of an object, calling the handler with each change.
    typealias MakeToken = @Sendable (
        _ object: StressObject, _ keyPath: String, _ options: KeyValueObservingOptions,
        _ handler: @escaping @Sendable (StressObject, KeyValueChange) -> Void
    ) -> ObservationToken

    private let makeToken: MakeToken

    init(observer: StressObserver, retainsObjects: Bool, makeToken: @escaping MakeToken) {
        self.observer = observer
        self.retainsObjects = retainsObjects
        self.makeToken = makeToken
    }

    /// Ends every slot in the order they were reserved: invalidates its token, then lets the token and a strongly
    /// held object go. Never in the dictionary's order, which depends on object addresses: a slot may hold the last
    /// reference to its object, whose deinit (and the removals it makes) must come at the same point in every run of
    /// a controlled schedule.
    deinit {
        let ordered = slots.values.sorted { $0.sequence < $1.sequence }
        slots.removeAll()
        for slot in ordered {
            slot.token?.invalidate()
            slot.token = nil
            slot.strongObject = nil
        }
    }

    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall
    ) -> ObserveOutcome {
        // Held for the whole call, as the guard holds its observer, so `.initial` always has an observer to go to; an
        // observer that is already gone makes the call invalid, as with the guard.
        guard let heldObserver = self.observer else { return .invalid }
        // As the guard does, refuse a key path that cannot be observed before reserving anything, so no other caller
        // ever sees a slot for it.
        guard KVORuntimeBackend().canObserve(object, forKeyPath: keyPath) else { return .invalid }
        let key = Key(object: ObjectIdentifier(object), keyPath: keyPath)
        let slot = Slot(object: object, retains: retainsObjects, initial: options.contains(.initial))
        let reserved = lock.withLock { () -> Bool in
            if let existing = slots[key], existing.object === object { return false }
            nextSequence += 1
            slot.sequence = nextSequence
            slots[key] = slot
            removed[key] = nil
            return true
        }
        guard reserved else { return .duplicate }

        let observer = UncheckedWeak(heldObserver)
        let token = makeToken(object, keyPath, options) { [weak slot] object, change in
            guard let slot, slot.delivers, let observer = observer.value else { return }
            sink.deliver(observer: observer, object: object, change: change)
        }
        slot.observeReturned()
        withExtendedLifetime(heldObserver) {}

        let outcome = lock.withLock { () -> (ObserveOutcome, invalidate: Bool, release: StressObject?) in
            slot.token = token
            guard token.result == .registered else {
                if slots[key] === slot { slots[key] = nil }
                slot.set(.removed)
                return (.invalid, true, slot.strongObject.take())
            }
            guard slot.state == .reserved else {
                // Unobserved while the token was being made (it answered `.removed`); end it now.
                return (.registered, true, nil)
            }
            slot.set(.active)
            return (.registered, false, nil)
        }
        if outcome.invalidate { token.invalidate() }
        withExtendedLifetime(outcome.release) {}
        return outcome.0
    }

    func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
        let key = Key(object: ObjectIdentifier(object), keyPath: keyPath)
        let outcome = lock.withLock { () -> (UnobserveOutcome, Slot?) in
            guard let slot = slots[key], slot.object === object else {
                slots[key] = nil
                return (removed[key]?.object === object ? .alreadyRemoved : .notRegistered, nil)
            }
            slots[key] = nil
            remember(key, object: object)
            return (.removed, retire(slot))
        }
        end(outcome.1)
        return outcome.0
    }

    func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome {
        let id = ObjectIdentifier(object)
        let outcome = lock.withLock { () -> (UnobserveOutcome, retired: [Slot], taken: [Slot]) in
            var removedAny = false
            var retired: [Slot] = []
            let taken = slots.filter { $0.key.object == id }.sorted { $0.value.sequence < $1.value.sequence }
            for (key, slot) in taken {
                slots[key] = nil
                // A slot of another object at this address belonged to an object that is gone: drop it quietly.
                guard slot.object === object else { continue }
                removedAny = true
                remember(key, object: object)
                if let slot = retire(slot) { retired.append(slot) }
            }
            if removedAny { return (.removed, retired, taken.map(\.value)) }
            let before = removed.contains { $0.key.object == id && $0.value.object === object }
            return (before ? .alreadyRemoved : .notRegistered, [], taken.map(\.value))
        }
        for slot in outcome.retired { end(slot) }
        // `outcome.taken` releases the slots after unlocking, in the order they were reserved.
        return outcome.0
    }

    func unobserveAll(call: StressCall) -> Int? {
        let outcome = lock.withLock { () -> (retired: [Slot], taken: [Slot]) in
            var retired: [Slot] = []
            let taken = slots.sorted { $0.value.sequence < $1.value.sequence }
            for (key, slot) in taken {
                if let object = slot.object { remember(key, object: object) }
                if let slot = retire(slot) { retired.append(slot) }
            }
            // `taken` holds every slot, so emptying the dictionary here releases none of them for good.
            slots = [:]
            return (retired, taken.map(\.value))
        }
        for slot in outcome.retired { end(slot) }
        // `outcome.taken` releases the slots after unlocking, in the order they were reserved.
        return nil
    }

    /// Lock held. Marks `slot` as leaving; returns it if its token must be invalidated now (not while it is still
    /// being made: the observing thread does that).
    private func retire(_ slot: Slot) -> Slot? {
        switch slot.state {
        case .reserved:
            slot.set(.cancelled)
            return slot
        case .active:
            slot.set(.removed)
            return slot
        case .cancelled, .removed:
            return nil
        }
    }

    /// Invalidates `slot`'s token (if it has one yet) and releases a strongly held object, outside the lock.
    private func end(_ slot: Slot?) {
        guard let slot else { return }
        let (token, object) = lock.withLock { (slot.token, slot.strongObject.take()) }
        token?.invalidate()
        withExtendedLifetime(object) {}
    }

    /// Lock held. Records a removal, sweeping out entries of objects that are gone once the record grows.
    private func remember(_ key: Key, object: StressObject) {
        removed[key] = WeakObject(object)
        if removed.count > sweepThreshold {
            removed = removed.filter { $0.value.object != nil }
            sweepThreshold = max(64, removed.count * 2)
        }
    }
}

/// A weak reference carried into a `@Sendable` closure.
struct UncheckedWeak<Object: AnyObject>: @unchecked Sendable {
    weak var value: Object?

    init(_ value: Object?) {
        self.value = value
    }
}

extension Optional {
    /// The value, leaving `nil` behind.
    fileprivate mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}
