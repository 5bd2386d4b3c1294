/// Puts the guard in front of GuardCore's own runtime: observed objects are ``KVOObject``s.
///
/// Registrations made through it never report misuse to the runtime: an unknown key along a dotted key path's chain
/// reads as `nil` and is reported to the guard (``ObservationReceiver/observedKeyPathBecameUnavailable()``) instead.
/// The runtime holds each receiver strongly while it is registered and calls it directly; the handle it returns is
/// the runtime's registration itself.
public struct KVORuntimeBackend: KeyValueObservingBackend {
    /// Creates the backend; it has no state of its own.
    public init() {}

    /// `true` for a ``KVOObject`` and a well-formed key path whose keys it knows (checked along the current chain
    /// of a dotted path), without reporting a runtime misuse.
    public func canObserve(_ object: AnyObject, forKeyPath keyPath: String) -> Bool {
        validate(object, forKeyPath: keyPath) != nil
    }

    /// Registers through the runtime (never with `.initial`: the guard delivers that itself). Returns `nil`, without
    /// reporting a runtime misuse, for an object that is not a ``KVOObject`` or a key path whose first key its class
    /// does not know. A dotted path whose chain stopped making sense since ``canObserve(_:forKeyPath:)`` accepted it
    /// is registered all the same (it reads as `nil` until the chain is whole again, and the guard hears of it), as
    /// when the guard calls the runtime directly: refusing it would turn an observe that concurrent calls already saw
    /// reserved into `.invalid`.
    public func addObserver(
        _ receiver: any ObservationReceiver, to object: AnyObject, forKeyPath keyPath: String,
        options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?, dropsWithObject: Bool
    ) -> (any BackendHandle)? {
        guard let object = object as? KVOObject, let info = ObservedClassInfo.keyPathInfo(for: keyPath, on: object),
            info.overlongKeyPath == nil, info.collectionStep == nil
        else { return nil }
        return add(receiver, to: object, info: info, options: options, context: context, dropsWithObject: dropsWithObject)
    }

    // MARK: What the guard calls directly when this is its backend

    /// An object and a key path it can be observed for.
    struct Validated {
        let object: KVOObject
        let info: KeyPathInfo
    }

    /// ``canObserve(_:forKeyPath:)``, keeping what it found for ``add(_:to:info:options:context:dropsWithObject:)``.
    func validate(_ object: AnyObject, forKeyPath keyPath: String) -> Validated? {
        guard let object = object as? KVOObject, let info = info(for: keyPath, on: object) else { return nil }
        return Validated(object: object, info: info)
    }

    /// What the runtime knows about `keyPath` on `object`, if it can be observed there (see
    /// ``canObserve(_:forKeyPath:)``): not when it, or a key path declared to affect it, has more components than the
    /// runtime follows (``KeyPathInfo/overlongKeyPath``), or goes through a collection or uses a collection operator
    /// (``KeyPathInfo/collectionStep``; a collection held by the first key now is refused as any value that is not an
    /// observable object is).
    func info(for keyPath: String, on object: KVOObject) -> KeyPathInfo? {
        guard let info = ObservedClassInfo.keyPathInfo(for: keyPath, on: object), info.overlongKeyPath == nil,
            info.collectionStep == nil, Self.isFollowable(info, on: object)
        else { return nil }
        return info
    }

    /// ``addObserver(_:to:forKeyPath:options:context:dropsWithObject:)`` for a key path validated before (its
    /// `info`). A receiver that is itself an observance made with this very `info` (a ``GuardRegistration`` whose
    /// guard has this runtime as its backend) is inserted as it is, and is its own handle; one made with other info
    /// (a guard in front of a backend that wraps this one made its info without the key path's dependent keys) is
    /// registered like any receiver, so it hears every trigger and its handle is the runtime's registration. A dotted key path whose chain stopped making sense since it was validated (its
    /// middle object replaced meanwhile) is registered all the same: like any registration whose chain breaks, it
    /// reads as `nil` and reports ``ObservationReceiver/observedKeyPathBecameUnavailable()`` until the chain is whole
    /// again. (The guard has already reserved the registration, and other callers may have been told it exists.)
    func add(
        _ receiver: any ObservationReceiver, to object: KVOObject, info: KeyPathInfo,
        options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?, dropsWithObject: Bool
    ) -> Observance? {
        if let observance = receiver as? Observance, observance.info === info,
            observance.isActive, observance.isGuarded, observance.dropsWithObject == dropsWithObject
        {
            return object.insert(observance)
        }
        return object.register(
            receiver, info: info, options: options.subtracting(.initial), context: context,
            dropsWithObject: dropsWithObject, isGuarded: true)
    }

    /// Whether the keys after the first (known) one are known along the chain as far as it currently exists.
    private static func isFollowable(_ info: KeyPathInfo, on object: KVOObject) -> Bool {
        guard let remainingPath = info.remainingPath else { return true }
        guard let next = KeyValueReading.value(of: object, forKey: info.firstKey, reportingMisuse: false) else {
            return true
        }
        guard let nextObject = next as? KVOObject else { return false }
        return nextObject.isKnownKeyPathAlongCurrentChain(remainingPath)
    }

    /// Unregisters through the runtime; a registration the runtime already dropped is ignored.
    public func removeObservation(_ observation: any BackendHandle, from object: AnyObject) {
        guard let observance = observation as? Observance, let object = object as? KVOObject else { return }
        object.unregister(observance)
    }

    /// The value at `keyPath`, read quietly: a chain that cannot be followed reads as `nil`, never as misuse.
    public func currentValue(of object: AnyObject, forKeyPath keyPath: String) -> Any? {
        guard let object = object as? KVOObject else { return nil }
        return KeyValueReading.value(of: object, forKeyPath: keyPath, reportingMisuse: false)
    }
}

extension KVOObject {
    /// Whether each key of `keyPath` is known, following the chain as far as it currently exists (a `nil`
    /// intermediate ends the check successfully: there is nothing deeper to check yet). Never reports misuse.
    func isKnownKeyPathAlongCurrentChain(_ keyPath: String) -> Bool {
        let (first, rest) = KeyPathSyntax.split(keyPath)
        guard isKnownKey(first) else { return false }
        guard let rest else { return true }
        guard let next = KeyValueReading.value(of: self, forKey: first, reportingMisuse: false) else { return true }
        guard let nextObject = next as? KVOObject else { return false }
        return nextObject.isKnownKeyPathAlongCurrentChain(rest)
    }
}
