import GuardCoreAtomics

/// One registration of one ``ObservationController``: (object, key path) with its options, handler and state.
///
/// It is the receiver the backend calls. It holds the observed object strongly or weakly as the controller asks,
/// and reaches the observer only through the controller, which holds it weakly.
final class GuardRegistration: ObservationReceiver, @unchecked Sendable {
    /// The handler, type-erased: (observer, object, change).
    typealias Handler = @Sendable (AnyObject, AnyObject, KeyValueChange) -> Void

    // The first two stored properties are atomic words reached through ``InlineAtomicWords`` only: keep them first.
    /// Word 0: the ``RegistrationState``.
    private var stateWord = gca_word()
    /// Word 1: nonzero once the gone observer was reported.
    private var reportedObserverGoneWord = gca_word()

    let key: RegistrationKey
    let options: KeyValueObservingOptions
    let context: UnsafeMutableRawPointer?
    let handler: Handler
    let callSite: GuardDiagnostic.CallSite
    /// The controller's shared state; weak so an in-flight notification never keeps a released controller's
    /// registrations alive.
    private weak var core: ControllerCore?
    /// Set when the object is held strongly. The registration itself is dropped as soon as it is removed (the
    /// backend only holds it weakly), which releases the object.
    private let strongObject: AnyObject?
    private weak var weakObject: AnyObject?
    /// The backend's handle; written once under the controller's lock, before the state leaves `pending`.
    var backendHandle: (any BackendHandle)?
    /// The order in which the controller made its registrations; written once under its lock.
    var sequence: UInt64 = 0

    init(
        object: AnyObject, keyPath: String, options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?,
        retainsObject: Bool, handler: @escaping Handler, callSite: GuardDiagnostic.CallSite, core: ControllerCore
    ) {
        self.key = RegistrationKey(object: ObjectIdentifier(object), keyPath: keyPath)
        self.options = options
        self.context = context
        self.handler = handler
        self.callSite = callSite
        self.core = core
        self.strongObject = retainsObject ? object : nil
        self.weakObject = object
    }

    /// The registration's life; see ``RegistrationState``.
    var state: RegistrationState { RegistrationState(storage: InlineAtomicWords.word(0, of: self)) }

    var keyPath: String { key.keyPath }

    /// The observed object while it lives.
    var object: AnyObject? {
        strongObject ?? weakObject
    }

    func receive(_ change: KeyValueChange, of object: AnyObject) {
        guard state.delivers, let core else { return }
        SchedulePoints.reach(.guardBeforeHandler)
        guard let observer = core.observer else {
            if InlineAtomicWords.word(1, of: self).exchange(1) == 0 {
                core.emit(.observerDeallocated, object: object, keyPath: keyPath, callSite: callSite)
            }
            return
        }
        // Checked again right before the call, so an unobserve that returned meanwhile is honoured.
        guard state.delivers else { return }
        handler(observer, object, change)
    }

    func observedObjectDidDeinit() {
        core?.observedObjectDidDeinit(self)
    }

    func observedKeyPathBecameUnavailable() {
        guard state.delivers, let core else { return }
        core.emit(.keyPathUnavailable, object: object, keyPath: keyPath, callSite: callSite)
    }
}
