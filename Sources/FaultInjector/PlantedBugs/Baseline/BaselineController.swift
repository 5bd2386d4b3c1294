import GuardCore

/// The compact, correct guard-like controller every planted bug is a variation of: straight over GuardCore's
/// runtime (`addObserver` / `removeObserver` with a ``PlantedBridge`` per registration), one registration per
/// (controller, object, key path), exact results, the `.initial` pending / cancelled states, a delivery-time check
/// against a snapshot taken under the lock, handlers and runtime calls outside the lock, everything removed on
/// teardown. Run unmodified (target `planted-baseline`, accepted by name, never listed) it keeps the oracle, so a
/// planted bug's violations come from its one variation.
///
/// A registration whose initial value it delivers itself is added through ``KVORuntimeBackend`` (as the guard's
/// are), so it joins a change already under way (see ``registersJoiningChangesUnderWay(_:)``); every other one
/// through the runtime's application API (Foundation's `addObserver`), and every removal too, so the runtime reports
/// the misuses some planted bugs make.
///
/// It keeps observed objects alive even for a controller asked to hold them weakly: it never asks the runtime to
/// tell it of an object's deinit, and the oracle accepts a registration that outlives its object's slot.
/// Each step a planted bug changes is a method of its own; the subclasses in `PlantedBugs/` override one each.
class BaselineController: StressController, @unchecked Sendable {
    private weak var observer: StressObserver?
    /// `observer`'s identity, as an explorer names its life.
    private let observerIdentity: ObjectIdentifier
    /// Whether the harness asked for observed objects to be held strongly.
    let retainsObjects: Bool
    let table: PlantedTable
    /// Keys this controller removed, to tell `alreadyRemoved` from `notRegistered`. Guarded by the table's lock.
    private var removedKeys: Set<PlantedRegistrationKey> = []

    required init(observer: StressObserver, retainsObjects: Bool, table: PlantedTable) {
        self.observer = observer
        self.observerIdentity = ObjectIdentifier(observer)
        self.retainsObjects = retainsObjects
        self.table = table
    }

    deinit {
        let owner = ObjectIdentifier(self)
        let taken = table.lock.withLock { () -> [PlantedRegistration] in
            let mine = table.live.filter { $0.owner == owner }
            for registration in mine { table.remove(registration) }
            return mine.filter { withdraw($0) }
        }
        for registration in taken { unregister(registration) }
    }

    // MARK: The steps planted bugs vary

    /// Whether registrations keep their object alive. Always, in the baseline (see the type's comment).
    var keepsObjectsAlive: Bool { true }

    /// The name an object is keyed by: its id.
    func name(of object: StressObject) -> String { "#\(object.id)" }

    /// The dedup key of (this controller, `object`, `keyPath`).
    func key(for object: StressObject, keyPath: String) -> PlantedRegistrationKey {
        PlantedRegistrationKey(owner: ObjectIdentifier(self), object: name(of: object), keyPath: keyPath)
    }

    /// Files `registration` unless its key is taken; returns whether it did. Takes the lock.
    func reserve(_ registration: PlantedRegistration) -> Bool {
        table.lock.withLock {
            guard table.byKey[registration.key] == nil else { return false }
            table.insert(registration)
            return true
        }
    }

    /// Marks a registration just taken out of the table as gone (the caller holds the lock); returns whether the
    /// caller must now remove it from the runtime. A pending one is only cancelled: the runtime does not have it yet,
    /// and the observing thread removes it once the runtime's add returned.
    func withdraw(_ registration: PlantedRegistration) -> Bool {
        if registration.transition(from: .pending, to: .cancelled) { return false }
        return registration.transition(from: .active, to: .removed)
    }

    /// Delivers a notification that reached `bridge`, whose registration is filed in `table`: looks the
    /// registration up in a snapshot taken under the lock, and calls the handler after unlocking, only if the
    /// registration is still live. A class method, so a delivery in flight never keeps a controller alive past its
    /// release (the harness records when the controller ended).
    class func deliver(_ change: KeyValueChange, of object: StressObject, through bridge: PlantedBridge, in table: PlantedTable) {
        let live = table.lock.withLock { table.live.contains { $0.bridge === bridge && $0.delivers } }
        if live { bridge.forward(change, of: object) }
    }

    /// Makes a registration the runtime now has active, unless an unobserve cancelled it meanwhile (then `false`).
    /// Called under the table's lock; the state stays an announced atomic word, as the guard's is.
    func activate(_ registration: PlantedRegistration) -> Bool {
        registration.transition(from: .pending, to: .active)
    }

    /// Whether the observing thread activates its registration under the table's lock, as a removal withdraws it
    /// (the baseline does: a schedule point between the add and the activation, where another thread's unobserve can
    /// come), or lock-free, by the compare-and-exchange alone, as the guard does.
    var activatesUnderLock: Bool { true }

    /// Whether a registration an unobserve cancelled while it was being added still gets its `.initial`
    /// notification: yes in the baseline (as in the guard: this `observe` took effect before that removal).
    var deliversInitialAfterCancellation: Bool { true }

    /// Whether the runtime delivers `.initial` (from inside its add, before it has the registration, as Foundation
    /// does). Not in the baseline: like the guard it registers without `.initial`, and delivers the initial value
    /// itself once the registration exists, exactly once, even if another thread removed it meanwhile.
    var runtimeDeliversInitial: Bool { false }

    /// Whether the `.initial` value is read before the registration exists in the runtime (and delivered once it
    /// does). Not in the baseline: like the guard it registers first and reads the value after, so a change that
    /// completes after the observe began is either in the value read or delivered to the registration as a change.
    var readsInitialValueBeforeRegistering: Bool { false }

    /// What an unobserve of a key path nothing is registered for does besides answering: nothing.
    func unobserveNothing(_ object: StressObject, keyPath: String) {}

    /// Whether a registration whose `.initial` notification it delivers itself holds back the changes that reach it
    /// before that notification, and delivers them on the observing thread right after it (as the guard does). In the
    /// baseline it does, so the handler hears the initial notification first and ends on the current value.
    var holdsChangesUntilInitialDelivered: Bool { true }

    // MARK: StressController

    func observe(
        _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink, call: StressCall
    ) -> ObserveOutcome {
        // Loading the weak reference takes the observer (or finds it gone); it goes when this call returns.
        SchedulePoints.access(observerIdentity, .lifetime, .read)
        guard let observer else { return .invalid }
        defer { SchedulePoints.access(observerIdentity, .lifetime, .drop) }
        let registration = PlantedRegistration(
            key: key(for: object, keyPath: keyPath), owner: ObjectIdentifier(self), object: object,
            keepsObjectAlive: keepsObjectsAlive, keyPath: keyPath,
            bridge: PlantedBridge(delivery: type(of: self), table: table, observer: observer, sink: sink))
        let initialFromRuntime = runtimeDeliversInitial
        let deliversInitial = options.contains(.initial) && !initialFromRuntime
        let readsEarly = deliversInitial && readsInitialValueBeforeRegistering
        // Only a planted bug reads it here, before anything is registered.
        let valueReadEarly = readsEarly ? initialValue(of: object, keyPath: keyPath, options: options) : nil
        registration.bridge.holdsChanges = deliversInitial && holdsChangesUntilInitialDelivered
        guard reserve(registration) else { return .duplicate }
        if registersJoiningChangesUnderWay(options) {
            // The target observes only keys the runtime knows, so the backend never refuses.
            _ = KVORuntimeBackend().addObserver(
                registration.bridge, to: object, forKeyPath: keyPath, options: options.subtracting(.initial),
                context: registration.context, dropsWithObject: false)
        } else {
            object.addObserver(
                registration.bridge, forKeyPath: keyPath,
                options: initialFromRuntime ? options : options.subtracting(.initial), context: registration.context)
        }
        let settle = { !self.activate(registration) && registration.transition(from: .cancelled, to: .removed) }
        let cancelled = activatesUnderLock ? table.lock.withLock(settle) : settle()
        if cancelled {
            // An unobserve cancelled it while the runtime was adding it: take it out of the runtime now.
            unregister(registration)
        }
        if deliversInitial, !cancelled || deliversInitialAfterCancellation {
            // A chaos round's injected pause where the guard gets one too (at its schedule point after the add): the
            // window between the add and the initial notification. No schedule point, so controlled schedules stay
            // as they were; a controlled run injects no faults.
            WorkerContext.current?.faults.maybePause()
            // Read now, the registration exists: a change that completes from now on is in this value or delivered
            // as a change. A value read before the add misses the changes that completed in between.
            let value = readsEarly ? valueReadEarly : initialValue(of: object, keyPath: keyPath, options: options)
            registration.bridge.forward(
                KeyValueChange(kind: .setting, keyPath: keyPath, newValue: value), of: object, to: observer)
            deliverHeldChanges(of: registration)
        }
        return .registered
    }

    /// Right after `registration`'s initial notification, on the observing thread: delivers the changes it held back
    /// meanwhile, in arrival order (each through the controller class's delivery, which drops it if the registration
    /// was removed), until none is left; then it stops holding.
    private func deliverHeldChanges(of registration: PlantedRegistration) {
        guard registration.bridge.holdsChanges else { return }
        while true {
            let batch = table.lock.withLock { () -> [(change: KeyValueChange, object: StressObject, origin: ChangeOrigin)] in
                let batch = registration.held
                registration.held = []
                if batch.isEmpty || !registration.delivers { registration.bridge.holdsChanges = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            for held in batch {
                held.origin.deliver {
                    type(of: self).deliver(held.change, of: held.object, through: registration.bridge, in: table)
                }
            }
        }
    }

    /// Whether an observe with these `options` adds its registration so that it joins a change under way: one whose
    /// `willChangeValue` (and its snapshot of the observers) came before the add, and whose store and
    /// `didChangeValue` come after it. An observe that delivers the initial value itself does (through
    /// ``KVORuntimeBackend``, whose registrations the runtime notifies at the end of such a change, as it does the
    /// guard's): it reads that value after the add, maybe before such a change stores its new value, so the change
    /// must reach it. Registered through the application API, as Foundation's `addObserver`, it would not: a change
    /// under way that stores after the read would be lost. Any other observe uses the application API (a change under
    /// way when it registers began before it, and need not reach it).
    private func registersJoiningChangesUnderWay(_ options: KeyValueObservingOptions) -> Bool {
        options.contains(.initial) && !runtimeDeliversInitial
    }

    /// The value an `.initial` notification of `keyPath` carries as new: the current one with `.new`, else none.
    private func initialValue(of object: StressObject, keyPath: String, options: KeyValueObservingOptions) -> Any? {
        options.contains(.new) ? KVORuntimeBackend().currentValue(of: object, forKeyPath: keyPath) : nil
    }

    func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome {
        let key = key(for: object, keyPath: keyPath)
        let (taken, outcome) = table.lock.withLock { () -> (PlantedRegistration?, UnobserveOutcome) in
            guard let registration = table.byKey[key] else {
                return (nil, removedKeys.contains(key) ? .alreadyRemoved : .notRegistered)
            }
            table.remove(registration)
            removedKeys.insert(key)
            return (withdraw(registration) ? registration : nil, .removed)
        }
        if let taken { unregister(taken) }
        if outcome != .removed { unobserveNothing(object, keyPath: keyPath) }
        return outcome
    }

    func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome {
        let owner = ObjectIdentifier(self)
        let objectName = name(of: object)
        let (taken, outcome) = table.lock.withLock { () -> ([PlantedRegistration], UnobserveOutcome) in
            let mine = table.live.filter { $0.owner == owner && $0.key.object == objectName }
            guard !mine.isEmpty else {
                let removedBefore = removedKeys.contains { $0.object == objectName }
                return ([], removedBefore ? .alreadyRemoved : .notRegistered)
            }
            for registration in mine {
                table.remove(registration)
                removedKeys.insert(registration.key)
            }
            return (mine.filter { withdraw($0) }, .removed)
        }
        for registration in taken { unregister(registration) }
        return outcome
    }

    func unobserveAll(call: StressCall) -> Int? {
        let owner = ObjectIdentifier(self)
        let (taken, count) = table.lock.withLock { () -> ([PlantedRegistration], Int) in
            let mine = table.live.filter { $0.owner == owner }
            for registration in mine {
                table.remove(registration)
                removedKeys.insert(registration.key)
            }
            return (mine.filter { withdraw($0) }, mine.count)
        }
        for registration in taken { unregister(registration) }
        return count
    }

    /// Removes `registration` from the runtime (outside the lock), if its object still lives.
    func unregister(_ registration: PlantedRegistration) {
        registration.object?.removeObserver(
            registration.bridge, forKeyPath: registration.keyPath, context: registration.context)
    }
}
