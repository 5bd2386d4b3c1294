import Synchronization

/// One registration of one ``ObservationController``: (object, key path) with its options, handler and state.
///
/// It is the receiver the backend calls. It holds the observed object strongly or weakly as the controller asks,
/// and reaches the observer only through the controller, which holds it weakly.
final class GuardedObservation: ObservationReceiver, @unchecked Sendable {
    /// The handler, type-erased: (observer, object, change).
    typealias Handler = @Sendable (AnyObject, AnyObject, KeyValueChange) -> Void

    let key: RegistrationKey
    let options: KeyValueObservingOptions
    let context: UnsafeMutableRawPointer?
    let handler: Handler
    let callSite: GuardDiagnostic.CallSite
    let objectType: String
    let state = RegistrationState()
    /// The controller's shared state; weak so an in-flight notification never keeps a released controller's
    /// registrations alive.
    private weak var core: ControllerCore?
    /// Set when the object is held strongly. The registration itself is dropped as soon as it is removed (the
    /// backend only holds it weakly), which releases the object.
    private let strongObject: AnyObject?
    private weak var weakObject: AnyObject?
    /// The backend's handle; written once under the controller's lock, before the state leaves `pending`.
    var backendObservation: (any BackendObservation)?
    private let reportedObserverGone = Atomic<Bool>(false)

    init(
        object: AnyObject, keyPath: String, options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?,
        retainsObject: Bool, handler: @escaping Handler, callSite: GuardDiagnostic.CallSite, core: ControllerCore
    ) {
        self.key = RegistrationKey(object: ObjectIdentifier(object), keyPath: keyPath)
        self.options = options
        self.context = context
        self.handler = handler
        self.callSite = callSite
        self.objectType = ObjectDescription.typeName(type(of: object))
        self.core = core
        self.strongObject = retainsObject ? object : nil
        self.weakObject = object
    }

    var keyPath: String { key.keyPath }

    /// The observed object while it lives.
    var object: AnyObject? {
        strongObject ?? weakObject
    }

    func receive(_ change: KeyValueChange, of object: AnyObject) {
        guard state.delivers, let core else { return }
        SchedulePoints.reach(.guardBeforeHandler)
        guard let observer = core.observer else {
            if !reportedObserverGone.exchange(true, ordering: .relaxed) {
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
}
