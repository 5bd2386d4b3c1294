/// One registration of one ``ObservationController``: (object, key path) with its options, handler and state.
///
/// It is a runtime ``Observance`` as well as the receiver a backend calls: with GuardCore's runtime behind the guard
/// (``KVORuntimeBackend``, or ``AutomaticBackend`` for a ``KVOObject``), the registration itself is what the object's
/// table holds, so a registration is one
/// object and a delivery reaches the handler without a weak reference or a hop through another object. Another
/// backend sees only an ``ObservationReceiver`` and hands back its own handle, which the registration keeps while it
/// is active.
///
/// It holds the observed object strongly or weakly as the controller asks, its controller's shared state strongly
/// (a registration is removed from the controller and the backend before the controller goes, and an in-flight
/// notification may outlive that), and reaches the observer only through that state, which holds it weakly.
///
/// The handler lives in a subclass (``HandlerRegistration``), typed, so a registration costs one object.
@usableFromInline
class GuardRegistration: Observance, ObservationReceiver, @unchecked Sendable {
    /// The observed object's identity: the controller's key for it, even once a weakly held object is gone.
    let objectID: ObjectIdentifier
    let callSite: GuardDiagnostic.CallSite
    /// The controller's shared state.
    let core: ControllerCore
    /// The object itself when it is held strongly (the registration is released once it is removed, which releases
    /// the object), or a ``WeaklyHeldObject`` around it when it is held weakly (``Observance/dropsWithObject``): one
    /// reference either way, so a registration has no empty field to release when it goes.
    private let heldObject: AnyObject

    // The variables below are never accessed by two threads at once (see each), so the run-time exclusivity checks
    // would only cost time.
    /// Another backend's handle while the registration is active there: written under the controller's lock by the
    /// observing thread as it moves the state from `pending` to `active`, and taken out under that lock by whoever
    /// retires the active registration. `nil` when the registration is its own handle.
    @exclusivity(unchecked) var backendHandle: (any BackendHandle)?
    /// The order in which the controller made its registrations; written once under its lock.
    @exclusivity(unchecked) var sequence: UInt64 = 0
    /// The next (older) registration of the same object in the controller's table; guarded by its lock.
    @exclusivity(unchecked) var nextOnSameObject: GuardRegistration?
    /// Whether the gone observer was reported already; guarded by the controller's lock.
    @exclusivity(unchecked) var reportedObserverGone = false
    /// Whether a removal retired the registration after its observer was gone (its controller's teardown when the
    /// observer owned it, or an `unobserve` from the observer's deinit): a notification that still reaches it then
    /// is dropped for the gone observer and reported like one reaching an active registration. Written under the
    /// controller's lock before the state leaves `pending` or `active`, read by a delivery that saw it leave them.
    @exclusivity(unchecked) var retiredWithObserverGone = false

    /// What every registration is made with; the controller fills it in and a subclass adds its handler. Only a
    /// bundle of arguments, used while the controller's caller holds them, so it retains none of its objects but the
    /// key path's info, whose reference the controller hands over to it and it hands over to the one registration
    /// made from it (so neither the setup nor the registration pays for a reference of its own).
    @usableFromInline
    struct Setup: ~Copyable {
        fileprivate let objectReference: Unmanaged<AnyObject>
        /// The key path's info, with the reference the setup holds until ``takeInfo()``.
        private let infoReference: Unmanaged<KeyPathInfo>
        private let coreReference: Unmanaged<ControllerCore>
        let options: KeyValueObservingOptions
        let context: UnsafeMutableRawPointer?
        let retainsObject: Bool
        let callSite: GuardDiagnostic.CallSite

        /// The arguments of one `observe`; `info` is the key path (with what GuardCore's runtime knows about it when
        /// that is the backend). The caller keeps `object` and `core` alive while the setup is used, and makes one
        /// registration from it.
        init(
            object: AnyObject, info: consuming KeyPathInfo, options: KeyValueObservingOptions,
            context: UnsafeMutableRawPointer?, retainsObject: Bool, callSite: GuardDiagnostic.CallSite,
            core: ControllerCore
        ) {
            self.objectReference = Unmanaged.passUnretained(object)
            self.infoReference = Unmanaged.passRetained(info)
            self.coreReference = Unmanaged.passUnretained(core)
            self.options = options
            self.context = context
            self.retainsObject = retainsObject
            self.callSite = callSite
        }

        var object: AnyObject { objectReference.takeUnretainedValue() }
        var core: ControllerCore { coreReference.takeUnretainedValue() }

        /// The key path's info with the setup's reference to it, taken once: by the registration made from it.
        consuming func takeInfo() -> KeyPathInfo {
            infoReference.takeRetainedValue()
        }
    }

    init(_ setup: consuming Setup) {
        self.objectID = ObjectIdentifier(setup.object)
        self.callSite = setup.callSite
        self.core = setup.core
        let retainsObject = setup.retainsObject
        self.heldObject = retainsObject ? setup.object : WeaklyHeldObject(setup.object)
        let options = setup.options
        let context = setup.context
        super.init(
            info: setup.takeInfo(), options: options, context: context, dropsWithObject: !retainsObject,
            isGuarded: true)
        // Until its initial notification is delivered, a change that reaches it waits (see `ControllerCore`).
        if options.contains(.initial) { state.startHoldingChanges() }
    }

    /// The registration's life; see ``RegistrationState``.
    var state: RegistrationState {
        RegistrationState(storage: InlineAtomicWords.word(2, of: self), owner: ObjectIdentifier(self))
    }

    /// The observed object when the registration holds it strongly; `nil` when it holds it weakly.
    var strongObject: AnyObject? {
        dropsWithObject ? nil : heldObject
    }

    /// ``strongObject`` without a reference of its own: valid while the registration lives.
    var unretainedStrongObject: Unmanaged<AnyObject>? {
        dropsWithObject ? nil : Unmanaged.passUnretained(heldObject)
    }

    /// Whether the registration holds its object weakly.
    var holdsObjectWeakly: Bool { dropsWithObject }

    /// What the registration keeps of a weakly held object; `nil` when it holds the object strongly.
    private var weaklyHeld: WeaklyHeldObject? {
        dropsWithObject ? unsafeDowncast(heldObject, to: WeaklyHeldObject.self) : nil
    }

    /// The observed object while it lives.
    var object: AnyObject? {
        guard let weaklyHeld else { return heldObject }
        let object = weaklyHeld.object
        // Held until the harness's operation ends, as far as an explorer knows (a bound on where GuardCore drops it).
        SchedulePoints.access(objectID, .lifetime, object == nil ? .read : .hold)
        return object
    }

    /// Whether this registration is about `object`, which the caller keeps alive. Only the chain at `object`'s
    /// address needs asking: a weakly held object's registration can outlive it there until its backend drops it,
    /// and a new object may get that address. A weakly held ``KVOObject`` is recognized by its observation table,
    /// also while its own deinit runs; any other weakly held object only while its weak reference still reads it
    /// (from the start of its deinit on, its registrations count as a gone object's).
    func isAbout(_ object: AnyObject) -> Bool {
        guard let weaklyHeld else { return heldObject === object }
        if let observed = self.object { return observed === object }
        guard let table = weaklyHeld.table else { return false }
        return KVOObject.existingTableReference(of: object)?.toOpaque() == Unmanaged.passUnretained(table).toOpaque()
    }

    /// Whether the registration is of a weakly held ``KVOObject`` whose observation table it has not taken yet (the
    /// object had none when the registration was made). Asked by the observing thread, the only one that writes it.
    var lacksObjectTable: Bool {
        guard let weaklyHeld else { return false }
        return weaklyHeld.table == nil
    }

    /// Controller's lock held, by the observing thread once GuardCore's runtime made `object`'s table (the observed
    /// object, alive): takes it (see ``lacksObjectTable``).
    func takeObjectTable(of object: KVOObject) {
        guard let weaklyHeld, weaklyHeld.table == nil else { return }
        weaklyHeld.table = object.existingTable
    }

    /// The observation table of a weakly held ``KVOObject`` that reads as gone but is still running its deinit (see
    /// ``isAbout(_:)``); `nil` otherwise.
    var tableOfDeinitializingObject: ObservationTable? {
        guard let weaklyHeld, let table = weaklyHeld.table, self.object == nil, !table.objectIsDeinitialized
        else { return nil }
        return table
    }

    /// Calls the user's handler.
    func invokeHandler(observer: AnyObject, object: AnyObject, change: KeyValueChange) {
        preconditionFailure("GuardRegistration is abstract")
    }

    // MARK: Receiving (from any backend)

    /// A backend's notification. The handler is given the object this registration observes (typed as its caller
    /// declared it), never another one a backend names: a backend that passes a different object does not make the
    /// handler see an object of the wrong type. Nothing is delivered once a weakly held object is gone.
    @usableFromInline
    func receive(_ change: KeyValueChange, of object: AnyObject) {
        if !dropsWithObject && object === heldObject {
            notify(change, of: object)
        } else if let observed = self.object {
            notify(change, of: observed)
        }
    }

    /// Calls the handler for `change` of `object`, the observed object, unless the registration stopped delivering
    /// or its observer is gone. A registration whose `.initial` notification is pending holds the change back for its
    /// observing thread instead.
    ///
    /// A notification dropped because the observer is gone is reported once per registration, whichever thread
    /// drops it first: one that finds the registration delivering and the observer gone, or one that finds it
    /// retired by a removal made after the observer was gone (see ``retiredWithObserverGone``), the two orders in
    /// which a delivery can meet the observer's release and the controller's teardown it sets off. A registration
    /// removed while its observer lived reports nothing for a notification still on its way.
    private func notify(_ change: KeyValueChange, of object: AnyObject) {
        let word = state.word
        if !RegistrationState.deliversDirectly(word) {
            // Holding changes: kept for the observing thread, unless it stopped holding (or delivering) meanwhile;
            // then delivered here, after everything it held, or dropped below.
            if RegistrationState.holdsChanges(word), core.holdBack(change, for: self) { return }
            guard state.delivers else {
                if retiredWithObserverGone { reportObserverGone(object: object) }
                return
            }
        }
        SchedulePoints.reach(.guardBeforeHandler, self)
        guard let observer = core.observer else {
            reportObserverGone(object: object)
            return
        }
        // The observer goes when this returns: an explorer counts that as a drop.
        defer { core.droppedObserver() }
        // Checked again right before the call, so an unobserve that returned meanwhile is honoured.
        guard state.delivers else { return }
        invokeHandler(observer: observer, object: object, change: change)
    }

    /// Reports the gone observer unless this registration reported it already.
    private func reportObserverGone(object: AnyObject) {
        if core.noteObserverGoneReported(for: self) {
            core.emit(.observerDeallocated, object: object, keyPath: keyPath, callSite: callSite)
        }
    }

    @usableFromInline
    func observedObjectDidDeinit() {
        core.observedObjectDidDeinit(self)
    }

    @usableFromInline
    func observedKeyPathBecameUnavailable() {
        guard state.delivers else { return }
        core.emit(.keyPathUnavailable, object: object, keyPath: keyPath, callSite: callSite)
    }

    // MARK: As GuardCore's runtime's observance

    override func deliver(_ change: KeyValueChange, from object: KVOObject) {
        guard isActive else { return }
        SchedulePoints.reach(.runtimeBeforeCallback, self)
        // GuardCore's runtime delivers from the observed object's own table: `object` is the observed object.
        notify(change, of: object)
    }

    override func announceObjectDeinit() {
        observedObjectDidDeinit()
    }

    override func announceChainBroken() {
        observedKeyPathBecameUnavailable()
    }

    override var observerType: Any.Type { type(of: self) }
    override var observerAddress: UInt { ObjectDescription.address(of: self) }
}

/// A registration whose handler takes the observer and the object typed as the caller declared them; stored as the
/// caller wrote it, with no wrapping closure.
@usableFromInline
final class HandlerRegistration<Observer: AnyObject, Object: AnyObject>: GuardRegistration, @unchecked Sendable {
    @usableFromInline
    typealias Handler = @Sendable (_ observer: Observer, _ object: Object, _ change: KeyValueChange) -> Void

    private let handler: Handler

    @usableFromInline
    init(_ setup: consuming Setup, handler: @escaping Handler) {
        self.handler = handler
        super.init(setup)
    }

    override func invokeHandler(observer: AnyObject, object: AnyObject, change: KeyValueChange) {
        // The controller's observer is an `Observer`, and the backend reports changes of the object it was given.
        handler(unsafeDowncast(observer, to: Observer.self), unsafeDowncast(object, to: Object.self), change)
    }
}
