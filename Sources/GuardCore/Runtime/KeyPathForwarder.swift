import GuardCoreAtomics

/// Carries changes from deeper objects of a dotted key path back to the observance on the root object.
///
/// For `"account.balance"` observed on a person, the person's observance is triggered by `account` itself, and a
/// forwarder observes `"balance"` on the current account. When `account` is replaced, ``rewire(_:of:)`` moves the
/// forwarder to the new account, so the old chain goes silent and the new one is live. Longer paths nest.
///
/// Re-wiring is linearizable per observance: however re-wirings of one observance interleave (a setter racing a
/// registration, two setters of a lock-backed middle key), when they have all returned exactly one forwarder is
/// installed, on the object the first key held when the last of them began, and only an installed forwarder relays
/// (except the change of a prior notification it relayed while installed: every prior notification an observer gets
/// is followed by its change, as in Foundation, even if a handler of it replaced the middle object). A forwarder that
/// still waits for such a change when the chain comes back to its target is installed again rather than replaced by a
/// new one, which would join the same change under way: each change reaches the root observance once.
///
/// The forwarder's registration on its target holds it; the forwarder holds its registration only until it is
/// detached, and everything else weakly.
final class KeyPathForwarder: ObservationReceiver, @unchecked Sendable {
    // The first four stored properties are atomic words reached through ``InlineAtomicWords`` only: keep them first.
    /// Word 0: nonzero while this is its root observance's installed forwarder (set under the root table's lock).
    private var installedWord = gca_word()
    /// Word 1: nonzero if a deeper link broke before this forwarder was installed (while it was being wired).
    private var brokeBeforeInstallWord = gca_word()
    /// Word 2: how many prior notifications this forwarder received whose change it has not received yet (the
    /// entries of `openPriors`), so a change with none open skips the pairing lock.
    private var openPriorsWord = gca_word()
    /// Word 3: nonzero while a detach waits for the changes of open prior notifications (see ``detach()``).
    private var detachDeferredWord = gca_word()

    private weak var root: KVOObject?
    private weak var rootObservance: Observance?
    /// `rootObservance`'s identity, compared before the weak reference is loaded (see ``relays(for:from:)``).
    private let rootObservanceIdentity: ObjectIdentifier
    private weak var target: KVOObject?
    private let targetIdentity: ObjectIdentifier
    /// The forwarder's own registration on the target; set once, before the forwarder can be installed, and taken
    /// out by ``detach()`` (each forwarder is detached once: whoever takes it out of its root observance, or the
    /// re-wiring that made it and lost).
    @exclusivity(unchecked) private var targetObservance: Observance?
    /// The prior notifications received and not yet ended by their change, per thread, innermost last: whether each
    /// was relayed. A change ends the innermost one of its thread (changes nest per thread, like Foundation's
    /// will/did pairs). Guarded by ``pairingLock``.
    @exclusivity(unchecked) private var openPriors: [UInt64: [Bool]] = [:]
    /// Guards every forwarder's `openPriors`: only dotted registrations with `.prior` take it, briefly, and never
    /// call out while holding it.
    private static let pairingLock = Lock()

    /// Whether the root observance asked for prior notifications (only then does this forwarder pair them).
    private let pairsPriors: Bool
    /// Whether the root observance leads to a dependent key's relay (see ``AnnouncementScope``).
    let leadsToRelay: Bool

    private init(root: KVOObject, rootObservance: Observance, target: KVOObject) {
        self.root = root
        self.rootObservance = rootObservance
        self.rootObservanceIdentity = ObjectIdentifier(rootObservance)
        self.target = target
        self.targetIdentity = ObjectIdentifier(target)
        self.pairsPriors = rootObservance.options.contains(.prior)
        self.leadsToRelay = rootObservance.leadsToRelay
        SchedulePoints.created(self)
    }

    /// Whether this is its root observance's current forwarder. Only an installed forwarder relays changes, so a
    /// forwarder that lost a re-wiring race never delivers.
    var isInstalled: Bool {
        get { word(0, .read).load(ordering: .acquiring) != 0 }
        set { word(0, .write).store(newValue ? 1 : 0, ordering: .releasing) }
    }

    /// Word `index` of the forwarder, its access (`kind`) announced to ``SchedulePoints`` (all four words count as one
    /// ``SharedWord/forwarder`` of this forwarder).
    @inline(__always)
    private func word(_ index: Int, _ kind: SharedAccess) -> AtomicWord {
        SchedulePoints.access(self, .forwarder, kind)
        return InlineAtomicWords.word(index, of: self)
    }

    /// Points the forwarder of a dotted `observance` on `root` at the object currently at its first key. Safe to
    /// call at any time, from any thread; a removed observance gets no new forwarder.
    ///
    /// Each call takes a new generation before it reads the first key, and installs its forwarder only if no later
    /// call began meanwhile; a call that loses drops its own forwarder. So the call that began last decides, and it
    /// read the first key after every store that triggered a re-wiring before it.
    static func rewire(_ observance: Observance, of root: KVOObject) {
        guard let table = root.existingTable else { return }
        let (firstKey, remainingPath) = KeyPathSyntax.split(observance.keyPath)
        guard let remainingPath else { return }
        SchedulePoints.access(observance, .rewireGeneration, .write)
        let generation = UInt64(bitPattern: Int64(observance.rewireGeneration.add(1, ordering: .acquiringAndReleasing)))
        let value = KeyValueReading.value(of: root, forKey: firstKey, reportingMisuse: !observance.isGuarded)
        SchedulePoints.reach(.runtimeRewireRead, observance)
        let newTarget = value as? KVOObject
        if let current = table.forwarder(of: observance), let newTarget,
            current.targetIdentity == ObjectIdentifier(newTarget), current.target != nil
        {
            return
        }
        guard observance.isActive else { return }
        var chainIsBroken = value != nil && newTarget == nil
        if chainIsBroken, !observance.isGuarded, let collection = value, collection is any KeyValueCodingCollection {
            // Foundation's re-wiring asks the collection to observe the rest, and the collection refuses.
            RuntimeMonitor.handle(
                MisuseMessages.keyPathThroughCollection(
                    object: root, keyPath: observance.keyPath,
                    step: CollectionStep(
                        keyPath: observance.keyPath, collectionKeyPath: firstKey, forwardedPath: remainingPath,
                        collectionType: type(of: collection))))
        }
        var isTooDeep = false
        var forwarder: KeyPathForwarder?
        if let newTarget, let waiting = table.takeForwarderAwaitingChanges(of: observance, on: newTarget),
            waiting.resumeIfAwaitingChanges()
        {
            // The chain is back on the target of a forwarder that still waits for the change of a prior notification
            // it relayed: that forwarder is installed again instead of a new one, which would join the same change
            // under way and deliver it a second time.
            forwarder = waiting
        } else if let newTarget {
            let candidate = KeyPathForwarder(root: root, rootObservance: observance, target: newTarget)
            // One step deeper along the chain (see ``ChainDepth``): refused past the limit, which breaks the chain here.
            let registration = ChainDepth.step {
                newTarget.register(
                    candidate, forKeyPath: remainingPath, options: observance.options.subtracting(.initial),
                    context: nil, dropsWithObject: true, isGuarded: observance.isGuarded,
                    joinsChangesUnderWay: observance.joinsChangesUnderWay)
            }
            if let registration, let registration {
                candidate.targetObservance = registration
                forwarder = candidate
            } else {
                chainIsBroken = true
                isTooDeep = registration == nil
            }
        }
        if isTooDeep, ChainDepth.refusedStepIsMisuse {
            RuntimeMonitor.handle(
                MisuseMessages.keyPathTooLong(object: root, keyPath: observance.keyPath, overlong: remainingPath))
        }
        let (installed, replaced) = table.install(forwarder, on: observance, generation: generation)
        if let forwarder, forwarder.word(1, .write).exchange(0) != 0 { chainIsBroken = true }
        if installed {
            replaced?.detach()
            if chainIsBroken, observance.isGuarded { observance.announceChainBroken() }
        } else {
            forwarder?.detach()
        }
    }

    /// Uninstalls the forwarder and unregisters it from its target; if prior notifications it relayed still wait
    /// for their changes, the unregistration waits for the last of them, so those changes still reach the root
    /// observance (nothing else does: the forwarder is no longer installed).
    ///
    /// Whether a prior notification is open is read under the pairing lock, under which ``receive(_:of:)`` decides
    /// whether to relay a prior notification and counts it open: a prior notification relayed is always counted
    /// before a detach looks, so the detach waits for its change.
    ///
    /// A forwarder whose unregistration waits is kept by its root's table until it ends, so a re-wiring that brings
    /// the chain back to its target installs it again (``resumeIfAwaitingChanges()``): each change reaches the root
    /// observance once.
    func detach() {
        isInstalled = false
        let detachDeferred = word(3, .write)
        detachDeferred.store(1, ordering: .releasing)
        let hasOpenPriors =
            pairsPriors
            ? Self.pairingLock.withLock { word(2, .read).load(ordering: .acquiring) != 0 }
            : word(2, .read).load(ordering: .acquiring) != 0
        guard hasOpenPriors else {
            unregisterIfDetachDeferred()
            return
        }
        guard let table = root?.existingTable else { return }
        table.noteAwaitingChanges(self)
        // The last open change may have ended (and unregistered this forwarder) before the table kept it.
        if word(3, .read).load(ordering: .acquiring) == 0 { withExtendedLifetime(table.forgetAwaitingChanges(self)) {} }
    }

    /// Takes back a detach that waits for the changes of open prior notifications, so this forwarder can be
    /// installed again; `false` if it is not waiting (its last open change already ended, or it was never detached).
    func resumeIfAwaitingChanges() -> Bool {
        Self.pairingLock.withLock {
            guard word(2, .read).load(ordering: .acquiring) != 0 else { return false }
            return word(3, .write).exchange(0) != 0
        }
    }

    /// Whether this forwarder carries the changes of `target` to `observance`. The caller keeps both alive. The weak
    /// references are loaded only once the identities match, so a load gives `nil` or the caller's own object, and
    /// releasing it is never the last release (asked under the root table's lock).
    func relays(for observance: Observance, from target: KVOObject) -> Bool {
        targetIdentity == ObjectIdentifier(target) && rootObservanceIdentity == ObjectIdentifier(observance)
            && rootObservance === observance && self.target === target
    }

    /// Unregisters the forwarder from its target if a detach is waiting (once, whoever gets here first).
    private func unregisterIfDetachDeferred() {
        guard word(3, .write).exchange(0) != 0 else { return }
        let observance = targetObservance
        targetObservance = nil
        if let target, let observance { target.unregister(observance) }
        if let table = root?.existingTable { withExtendedLifetime(table.forgetAwaitingChanges(self)) {} }
    }

    /// Relays `change` to the root observance while installed. A change whose prior notification this forwarder
    /// relayed is relayed even if the forwarder was uninstalled in between (a handler of that prior notification
    /// replaced the middle object, say): every prior notification an observer gets is followed by its change. Priors
    /// and changes pair per thread, innermost first, so a change nested in a prior handler (on an object no longer on
    /// the chain) never takes the place of the change that prior announced.
    func receive(_ change: KeyValueChange, of object: AnyObject) {
        let thread = CurrentThread.identifier
        if change.isPrior {
            // Decided and counted open under the pairing lock, which a detach takes to see whether to wait.
            let relays = Self.pairingLock.withLock { () -> Bool in
                let relays = isInstalled
                openPriors[thread, default: []].append(relays)
                word(2, .write).add(1, ordering: .acquiringAndReleasing)
                return relays
            }
            if relays { relay(change) }
            return
        }
        guard word(2, .read).load(ordering: .acquiring) != 0, let priorWasRelayed = takeInnermostOpenPrior(of: thread) else {
            if isInstalled { relay(change) }
            return
        }
        // The change of a prior notification this forwarder received: relayed if that prior was (whatever happened
        // since), or if the forwarder is installed now (installed, or installed again, after that prior came: the
        // prior it did not relay is relayed first, so the change has one, unless the root observance is a dependent
        // key's relay, which reads the values itself and so cannot begin a change already stored: it ignores a
        // change it did not begin); a detach that waited for it finishes after.
        if isInstalled {
            if !priorWasRelayed, let rootObservance, DependencyRelay.notified(by: rootObservance) == nil {
                relay(change.priorNotification)
            }
            relay(change)
        } else if priorWasRelayed {
            relay(change, readingNewValueFromRoot: true)
        }
        if word(2, .write).add(-1, ordering: .acquiringAndReleasing) == 0 { unregisterIfDetachDeferred() }
    }

    /// Takes the innermost open prior notification of `thread` and says whether it was relayed; `nil` if none.
    private func takeInnermostOpenPrior(of thread: UInt64) -> Bool? {
        Self.pairingLock.withLock {
            guard let relayed = openPriors[thread]?.popLast() else { return nil }
            if openPriors[thread]?.isEmpty == true { openPriors[thread] = nil }
            return relayed
        }
    }

    /// Delivers `change` to the root observance as a change of its key path. Once the forwarder is uninstalled, its
    /// target is off the chain: a new value is then read along the root's current chain (as Foundation reads a nested
    /// key path's new value from the observed object), never taken from the old target.
    private func relay(_ change: KeyValueChange, readingNewValueFromRoot: Bool = false) {
        guard let root, let rootObservance else { return }
        var newValue = change.newValue
        if readingNewValueFromRoot, newValue != nil, change.kind == .setting {
            newValue = boxNil(KeyValueReading.value(of: root, forKeyPath: rootObservance.keyPath, reportingMisuse: false))
        }
        let relayed = KeyValueChange(
            kind: change.kind, keyPath: rootObservance.keyPath, newValue: newValue,
            oldValue: change.oldValue, indexes: change.indexes, isPrior: change.isPrior)
        rootObservance.deliver(relayed, from: root)
    }

    func observedObjectDidDeinit() {}

    /// A deeper link of the chain broke: the root observance's chain is broken.
    func observedKeyPathBecameUnavailable() {
        guard isInstalled else {
            // Still being wired: the re-wiring that is installing this forwarder reports it.
            word(1, .write).store(1, ordering: .releasing)
            return
        }
        rootObservance?.announceChainBroken()
    }
}

extension KeyValueChange {
    /// The prior notification of this change, as the change's observance gets one: its kind, key path, old value and
    /// indexes, no new value.
    fileprivate var priorNotification: KeyValueChange {
        KeyValueChange(kind: kind, keyPath: keyPath, oldValue: oldValue, indexes: indexes, isPrior: true)
    }
}
