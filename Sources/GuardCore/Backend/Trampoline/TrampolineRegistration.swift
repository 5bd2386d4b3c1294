/// One registration made by ``TrampolineBackend``: the guard's receiver (held weakly), the key path, a context unique
/// among live registrations, and the trampoline the platform calls.
///
/// Ownership: the ``ObservedObjectSentinel`` of the observed object holds the trampoline strongly from before the
/// platform's `addObserver` until after its `removeObserver` returned, or until the object is gone; the trampoline
/// holds this registration strongly; this registration holds the trampoline weakly. So the platform never calls a
/// freed trampoline, and a registration never keeps its object's sentinel (or the object) alive.
package final class TrampolineRegistration: BackendHandle, @unchecked Sendable {
    /// The key path, as registered.
    package let keyPath: String
    /// Whether the registration ends silently (telling the receiver) when the observed object is deallocated.
    let dropsWithObject: Bool
    private weak var receiver: (any ObservationReceiver)?
    /// Set once, by whoever ends the registration first: the removal, or the observed object's deallocation.
    private let ended = AtomicCell()
    /// The trampoline; alive while the sentinel holds it.
    private weak var weakTrampoline: AnyObject?
    /// The sentinel of the observed object; `nil` once the object is gone.
    private(set) weak var sentinel: ObservedObjectSentinel?

    init(keyPath: String, receiver: any ObservationReceiver, dropsWithObject: Bool) {
        self.keyPath = keyPath
        self.receiver = receiver
        self.dropsWithObject = dropsWithObject
    }

    /// The context passed with this registration: its own address, unique among live registrations.
    package var context: UnsafeMutableRawPointer {
        Unmanaged.passUnretained(self).toOpaque()
    }

    /// The trampoline while the sentinel holds it.
    package var trampoline: AnyObject? {
        weakTrampoline
    }

    /// Called once, by the sentinel, before the registration is handed to the platform or the guard.
    func attach(_ trampoline: AnyObject, heldBy sentinel: ObservedObjectSentinel) {
        weakTrampoline = trampoline
        self.sentinel = sentinel
    }

    /// Whether the registration has ended (removed, or its object is gone).
    package var hasEnded: Bool {
        ended.word.load(ordering: .acquiring) != 0
    }

    /// Ends the registration; `true` for the one caller that ended it.
    func end() -> Bool {
        ended.word.exchange(1) == 0
    }

    /// The platform's change callback: converts the change and hands it to the receiver, unless the context is not
    /// this registration's (never the case for a correct platform) or the registration has ended.
    ///
    /// `change` reads one entry of the platform's change dictionary; it is only called when the notification is
    /// delivered.
    package func deliver(
        context: UnsafeMutableRawPointer?, of object: AnyObject, change: (FoundationChangeField) -> Any?
    ) {
        guard context == self.context, !hasEnded, let receiver else { return }
        receiver.receive(KeyValueChange(keyPath: keyPath, foundationChange: change), of: object)
    }

    /// The observed object was deallocated while this registration existed.
    func objectDidDeinit() {
        guard end(), dropsWithObject else { return }
        receiver?.observedObjectDidDeinit()
    }
}
