/// Puts the guard in front of a key-value observing implementation shaped like Foundation's (see
/// ``TrampolinePlatform``): `NSObject`'s KVO on Apple platforms, or a simulation of it in tests.
///
/// - One private trampoline observer per registration, with a context unique among live registrations, removed
///   with `removeObserver(_:forKeyPath:context:)`: the guard never removes a registration it did not make.
/// - The trampoline lives as long as the registration is known to the platform (it is held by the observed
///   object's ``ObservedObjectSentinel``), so the platform never calls a freed observer.
/// - Weakly held objects: the sentinel's deinit, which runs while the object is deallocated, ends the registrations
///   and tells the guard; nothing ever messages the object after that.
package struct TrampolineBackend<Platform: TrampolinePlatform>: KeyValueObservingBackend {
    let platform: Platform

    package init(platform: Platform) {
        self.platform = platform
    }

    package func canObserve(_ object: AnyObject, forKeyPath keyPath: String) -> Bool {
        KeyPathSyntax.isWellFormed(keyPath) && platform.canObserve(object, forKeyPath: keyPath)
    }

    package func addObserver(
        _ receiver: any ObservationReceiver, to object: AnyObject, forKeyPath keyPath: String,
        options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?, dropsWithObject: Bool
    ) -> (any BackendHandle)? {
        guard canObserve(object, forKeyPath: keyPath) else { return nil }
        let sentinel = ObservedObjectSentinel.attached(to: object, on: platform)
        let registration = TrampolineRegistration(keyPath: keyPath, receiver: receiver, dropsWithObject: dropsWithObject)
        let trampoline = platform.makeTrampoline(forwardingTo: registration)
        // Held before the platform knows it, so the platform never sees a trampoline nobody holds.
        sentinel.hold(trampoline, for: registration)
        platform.addObserver(
            trampoline, to: object, forKeyPath: keyPath, options: options.subtracting(.initial),
            context: registration.context)
        return registration
    }

    package func removeObservation(_ observation: any BackendHandle, from object: AnyObject) {
        // The caller holds `object`, so it is alive, and so are its sentinel and the trampolines the sentinel holds.
        // A registration whose sentinel is gone ended with its object; one made on another object is not touched.
        guard let registration = observation as? TrampolineRegistration, let sentinel = registration.sentinel,
            platform.sentinel(of: object) === sentinel, let trampoline = registration.trampoline, registration.end()
        else { return }
        platform.removeObserver(
            trampoline, from: object, forKeyPath: registration.keyPath, context: registration.context)
        sentinel.release(registration)
    }

    package func currentValue(of object: AnyObject, forKeyPath keyPath: String) -> Any? {
        platform.currentValue(of: object, forKeyPath: keyPath)
    }

    /// How many of this backend's registrations are on `object` (zero if it was never observed).
    package func registrationCount(on object: AnyObject) -> Int {
        platform.sentinel(of: object)?.registrationCount ?? 0
    }
}
