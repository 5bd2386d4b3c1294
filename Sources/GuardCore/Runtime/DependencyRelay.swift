import GuardCoreAtomics

/// Makes a dependent key fire when the leaf of a dotted affecting key path changes, as Foundation does.
///
/// For `keyPathsForValuesAffectingValue(forKey: "summary") == ["account.balance"]`, the table announces a change of
/// the *key path* `account.balance` to `summary`'s observers. One relay per object and affecting key path observes
/// `account.balance` (with `.prior`, so it follows `account` and every account it is re-wired to) and turns each
/// prior / change pair into a begun and an ended change of `account.balance` on the object, which notifies every key
/// path that depends on it, once. The table installs a relay when a dependent key path is registered and none is
/// installed (several registering threads may each start one; the table keeps one and the others are dropped), and
/// stops it when the last dependent goes. The relay's observance holds the relay; the relay holds its object
/// weakly, and a change it began holds the object until that change ends (see ``ManualChanges/DetachedChange``).
///
/// Every prior notification an observer gets is followed by its change: a relay stopped (see ``stop(_:on:)``) while a
/// change it began is open stays registered until the last such change has ended, then is removed, so an observer
/// that registered meanwhile and got the announced prior notification gets its change too. Whether to begin a change
/// and whether a stop must wait are both decided under the relay's lock, so no change begins after a stop decided
/// not to wait.
///
/// Only the installed relay begins changes (a candidate that lost, or one already stopped, stays silent), and a relay
/// never joins a change already under way when it was registered: it reads the dependent values itself, and a change
/// whose new value is stored has no old value left to read. A relay pairs the changes it begins with their ends itself
/// (per thread, innermost first) rather than through the thread's list of pending manual changes: a relay stopped
/// between a prior notification and its change never hears the change, and what it began must die with it instead of
/// pairing with some later `didChangeValue` of the same key path.
///
/// Declared dependencies may loop back (`peer` ← `peer.peer`, `a` ← `peer.a` with the peer being the object itself,
/// two objects' keys depending on each other): then registering a relay's own key path asks for the relay being
/// started, and announcing a change reaches the announcing relay again. Both end: a thread starts one relay per object
/// and key path at a time, and a relay ignores what reaches it while it is announcing the beginning of a change on the
/// same thread (the echo of its own announcement; nothing was stored yet), so a relay announces each change once.
final class DependencyRelay: ObservationReceiver, @unchecked Sendable {
    private weak var root: KVOObject?
    private let affectingKeyPath: String
    private let installed = AtomicCell()
    private let lock = Lock()
    /// The changes this relay began and has not ended, by thread, innermost last; `nil` for an echo it ignored, which
    /// its change notification pairs with as well.
    private var begun: [UInt64: [ManualChanges.DetachedChange?]] = [:]
    /// The threads on which this relay is announcing the beginning of a change.
    private var announcingThreads: Set<UInt64> = []
    /// Set by ``stop(_:on:)``: the table no longer keeps this relay, and it begins no more changes.
    private var isStopped = false
    /// The observance a stop left registered until the open changes end (the root's table holds it meanwhile).
    private weak var observanceAwaitingRemoval: Observance?
    /// The relays this thread is starting, as (object, affecting key path), so a relay's own observance does not
    /// start it again.
    private static let starting = ThreadLocal { StartingRelays() }

    private final class StartingRelays {
        var entries: [(object: ObjectIdentifier, keyPath: String)] = []

        func contains(_ object: ObjectIdentifier, _ keyPath: String) -> Bool {
            entries.contains { $0.object == object && $0.keyPath.isSameKey(as: keyPath) }
        }
    }

    private init(root: KVOObject, affectingKeyPath: String) {
        self.root = root
        self.affectingKeyPath = affectingKeyPath
        SchedulePoints.created(self)
    }

    /// Whether this is the relay its table keeps for its key path (set under the table's lock).
    var isInstalled: Bool {
        get {
            SchedulePoints.access(self, .relay, .read)
            return installed.word.load(ordering: .acquiring) != 0
        }
        set {
            SchedulePoints.access(self, .relay, .write)
            installed.word.store(newValue ? 1 : 0, ordering: .releasing)
        }
    }

    /// Adds a relay's observance of `affectingKeyPath` on `root` and hands its observance to `table`, which keeps it
    /// while some registered key path depends on `affectingKeyPath`.
    static func start(for affectingKeyPath: String, on root: KVOObject, in table: ObservationTable) {
        // Registering the relay's key path may ask for this very relay (a dependency that loops back to its own
        // key); the start under way on this thread installs it.
        let starting = Self.starting.value
        let rootID = ObjectIdentifier(root)
        guard !starting.contains(rootID, affectingKeyPath) else { return }
        starting.entries.append((rootID, affectingKeyPath))
        defer { starting.entries.removeAll { $0.object == rootID && $0.keyPath.isSameKey(as: affectingKeyPath) } }
        let relay = DependencyRelay(root: root, affectingKeyPath: affectingKeyPath)
        // One step deeper (see ``ChainDepth``): past the limit the dependency is not followed from here.
        let observance = ChainDepth.step {
            root.addObservance(
                of: relay, forKeyPath: affectingKeyPath, options: [.prior], context: nil, dropsWithObject: true,
                isGuarded: true, joinsChangesUnderWay: false)
        }
        guard let observance else {
            if ChainDepth.refusedStepIsMisuse {
                RuntimeMonitor.handle(
                    MisuseMessages.keyPathTooLong(object: root, keyPath: affectingKeyPath, overlong: affectingKeyPath))
            }
            return
        }
        guard let observance else { return }
        if !table.installRelay(observance, for: affectingKeyPath) {
            root.removeObservance(observance)
        }
    }

    /// Stops the relay `observance` notifies, which its root's table no longer keeps: removes it from `root` at
    /// once, or, if a change the relay began is still open, right after the last such change ends.
    static func stop(_ observance: Observance, on root: KVOObject) {
        guard let relay = notified(by: observance) else {
            root.removeObservance(observance)
            return
        }
        let waits = relay.lock.withLock { () -> Bool in
            relay.isStopped = true
            guard relay.hasOpenChanges else { return false }
            relay.observanceAwaitingRemoval = observance
            return true
        }
        if !waits { root.removeObservance(observance) }
    }

    /// The relay `observance` notifies, `nil` if it is not a relay's observance.
    static func notified(by observance: Observance) -> DependencyRelay? {
        (observance as? ReceiverObservance)?.receiver as? DependencyRelay
    }

    /// Whether a change this relay began (or is beginning) has not ended yet. Read under `lock`.
    private var hasOpenChanges: Bool {
        !begun.isEmpty || !announcingThreads.isEmpty
    }

    func receive(_ change: KeyValueChange, of object: AnyObject) {
        guard let root else { return }
        let thread = CurrentThread.identifier
        if change.isPrior {
            let action = lock.withLock { () -> PriorAction in
                guard isInstalled, !isStopped else {
                    // Not beginning anything; nested in a change this relay began on this thread (it was stopped
                    // since), its change must not end that one.
                    if begun[thread] != nil { begun[thread]!.append(nil) }
                    return .ignore
                }
                if announcingThreads.contains(thread) {
                    begun[thread, default: []].append(nil)
                    return .ignore
                }
                announcingThreads.insert(thread)
                return .begin
            }
            guard action == .begin else { return }
            let change = ManualChanges.beginDetached(object: root, key: affectingKeyPath)
            // Appended after the echoes it caused, so the change notifications, outermost first, pair up innermost
            // last.
            lock.withLock {
                announcingThreads.remove(thread)
                begun[thread, default: []].append(change)
            }
        } else {
            // Ends the change this relay began on this thread, if it began one (it may have been installed between
            // the prior notification and this one).
            let pending = lock.withLock { () -> ManualChanges.DetachedChange? in
                let last = begun[thread]?.popLast()
                if begun[thread]?.isEmpty == true { begun[thread] = nil }
                return last ?? nil
            }
            if let pending { ManualChanges.endDetached(pending, object: root) }
            // A stop that waited for the changes this relay began removes its observance once the last of them ended.
            let awaiting = lock.withLock { () -> Observance? in
                guard isStopped, !hasOpenChanges, let observance = observanceAwaitingRemoval else { return nil }
                observanceAwaitingRemoval = nil
                return observance
            }
            if let awaiting { root.removeObservance(awaiting) }
        }
    }

    /// What a prior notification makes this relay do.
    private enum PriorAction {
        /// Announce the beginning of a change of its key path on the root.
        case begin
        /// Nothing: an echo of its own announcement, or the relay is not (or no longer) the installed one.
        case ignore
    }

    func observedObjectDidDeinit() {}
    func observedKeyPathBecameUnavailable() {}
}
