#if canImport(ObjectiveC)
import Foundation
import ObjectiveC

// Apple platforms only. This folder is the whole of KVOGuard's Apple-only key-value observing glue: the logic it
// relies on (TrampolineBackend, TrampolineRegistration, ObservedObjectSentinel, the change conversion) is
// platform-free and tested on every platform.

/// Puts the guard in front of Foundation's own key-value observing, so an ``ObservationController`` guards any
/// `NSObject` (Apple platforms only).
///
/// - Each registration gets a private trampoline observer with its own context and is removed with
///   `removeObserver(_:forKeyPath:context:)`, so the guard never removes a registration someone else made.
/// - A trampoline stays alive for as long as Foundation may call it: it is owned by a sentinel attached to the
///   observed object as an associated object.
/// - Weakly held objects: when the object is deallocated, the sentinel's deinit tells the guard, which drops the
///   registration without a misuse. Nothing is swizzled, and a deallocated object is never messaged
///   (FBKVOController issue #140).
/// - A key path can be observed when each of its keys has a key-value coding getter (an `@objc` property, or a
///   `get<Key>`, `<key>`, `is<Key>` or `_<key>` method) along the current chain and no key passes through a
///   collection (Foundation raises when observing through an array or set). Anything else is
///   ``GuardDiagnostic/InvalidArgument/unobservableKeyPath`` instead of Foundation's exception.
///
/// Not covered, because the exception is raised inside Foundation during your own set: a dotted key path whose
/// middle object is later replaced by one without the next key; keys answered only by `value(forUndefinedKey:)`
/// (refused, as above).
public struct NSObjectBackend: KeyValueObservingBackend {
    private let base = TrampolineBackend(platform: NSObjectPlatform())

    /// Creates the backend; its state lives on the observed objects.
    public init() {}

    /// `true` for an `NSObject` and a key path Foundation can observe on it without raising (see the type's
    /// documentation).
    public func canObserve(_ object: AnyObject, forKeyPath keyPath: String) -> Bool {
        base.canObserve(object, forKeyPath: keyPath)
    }

    /// Registers a new trampoline with `addObserver(_:forKeyPath:options:context:)`; `nil` if
    /// ``canObserve(_:forKeyPath:)`` says no.
    public func addObserver(
        _ receiver: any ObservationReceiver, to object: AnyObject, forKeyPath keyPath: String,
        options: KeyValueObservingOptions, context: UnsafeMutableRawPointer?, dropsWithObject: Bool
    ) -> (any BackendHandle)? {
        base.addObserver(
            receiver, to: object, forKeyPath: keyPath, options: options, context: context,
            dropsWithObject: dropsWithObject)
    }

    /// Removes the registration's trampoline with `removeObserver(_:forKeyPath:context:)`, once; a registration that
    /// ended with its object is ignored.
    public func removeObservation(_ observation: any BackendHandle, from object: AnyObject) {
        base.removeObservation(observation, from: object)
    }

    /// The value at `keyPath` by key-value coding, read only along keys that have a getter, so it never raises;
    /// `nil` when it is nil or the chain cannot be followed.
    public func currentValue(of object: AnyObject, forKeyPath keyPath: String) -> Any? {
        base.currentValue(of: object, forKeyPath: keyPath)
    }

    /// How many of the guard's registrations are on `object` (for tests and debugging).
    package func registrationCount(on object: NSObject) -> Int {
        base.registrationCount(on: object)
    }
}

/// `NSObject`'s KVO and associated objects behind ``TrampolinePlatform``.
struct NSObjectPlatform: TrampolinePlatform {
    /// The association's key: the address of one byte allocated for the life of the process.
    private nonisolated(unsafe) static let sentinelKey = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

    func canObserve(_ object: AnyObject, forKeyPath keyPath: String) -> Bool {
        guard let object = object as? NSObject else { return false }
        return Self.isObservable(keyPath[...], on: object)
    }

    func currentValue(of object: AnyObject, forKeyPath keyPath: String) -> Any? {
        var current: Any? = object
        for key in keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
            guard let owner = current as? NSObject, !Self.isCollection(owner), Self.hasGetter(for: key, on: owner)
            else { return nil }
            current = owner.value(forKey: key)
        }
        return current
    }

    func sentinel(of object: AnyObject) -> ObservedObjectSentinel? {
        guard object is NSObject else { return nil }
        return objc_getAssociatedObject(object, Self.sentinelKey) as? ObservedObjectSentinel
    }

    func attach(_ sentinel: ObservedObjectSentinel, to object: AnyObject) {
        guard object is NSObject else { return }
        objc_setAssociatedObject(object, Self.sentinelKey, sentinel, .OBJC_ASSOCIATION_RETAIN)
    }

    func makeTrampoline(forwardingTo registration: TrampolineRegistration) -> AnyObject {
        NSObjectTrampoline(registration: registration)
    }

    func addObserver(
        _ trampoline: AnyObject, to object: AnyObject, forKeyPath keyPath: String, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer
    ) {
        guard let object = object as? NSObject, let trampoline = trampoline as? NSObjectTrampoline else { return }
        object.addObserver(
            trampoline, forKeyPath: keyPath, options: NSKeyValueObservingOptions(rawValue: options.rawValue),
            context: context)
    }

    func removeObserver(
        _ trampoline: AnyObject, from object: AnyObject, forKeyPath keyPath: String, context: UnsafeMutableRawPointer
    ) {
        guard let object = object as? NSObject, let trampoline = trampoline as? NSObjectTrampoline else { return }
        object.removeObserver(trampoline, forKeyPath: keyPath, context: context)
    }

    /// Each key has a getter, following the chain as far as it currently exists (a nil intermediate ends the check
    /// successfully, as for GuardCore's runtime), and no key is observed on a collection.
    private static func isObservable(_ keyPath: Substring, on object: NSObject) -> Bool {
        if isCollection(object) { return false }
        let dot = keyPath.firstIndex(of: ".")
        let key = String(keyPath[..<(dot ?? keyPath.endIndex)])
        guard hasGetter(for: key, on: object) else { return false }
        guard let dot else { return true }
        guard let next = object.value(forKey: key) else { return true }
        guard let nextObject = next as? NSObject else { return false }
        return isObservable(keyPath[keyPath.index(after: dot)...], on: nextObject)
    }

    /// Foundation raises when an observer is added to an array, set or ordered set.
    private static func isCollection(_ object: NSObject) -> Bool {
        object is NSArray || object is NSSet || object is NSOrderedSet
    }

    /// Key-value coding's getter search: `get<Key>`, `<key>`, `is<Key>`, `_<key>`.
    private static func hasGetter(for key: String, on object: NSObject) -> Bool {
        guard let first = key.first else { return false }
        let capitalized = first.uppercased() + key.dropFirst()
        return ["get\(capitalized)", key, "is\(capitalized)", "_\(key)"].contains { name in
            object.responds(to: NSSelectorFromString(name))
        }
    }
}
#endif
