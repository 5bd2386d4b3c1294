import GuardCoreAtomics

/// Tells whether a controller's observer still lives without taking a strong reference to it.
///
/// Reading the controller's weak reference to its observer retains the observer (through its side table, the slow
/// path) and releases it again: that is a good part of what an `observe` without `.initial` costs, which needs only
/// the answer. For a native Swift observer this keeps an unowned reference instead, which keeps the observer's
/// allocation (never its life: its deinit runs as it would) until the controller's state goes, so its reference
/// count can be asked whether its deinit has begun, the same moment from which a weak reference reads `nil`. An
/// observer that dies right after the answer is like one that dies right after the `observe` returned: its
/// registrations report it gone when they deliver. With Objective-C interoperability an observer may be an
/// Objective-C object, whose unowned references keep nothing: there the weak reference is read.
struct ObserverLiveness {
    #if !canImport(ObjectiveC)
    /// Keeps the observer's allocation, so ``address`` stays readable; never read.
    private unowned(safe) let allocation: AnyObject
    /// The observer's address.
    private let address: UnsafeRawPointer
    #endif

    init(of observer: AnyObject) {
        #if !canImport(ObjectiveC)
        allocation = observer
        address = UnsafeRawPointer(Unmanaged.passUnretained(observer).toOpaque())
        #endif
    }

    /// Whether the observer has not begun its deinit; `weakObserver` is the controller's weak reference to it,
    /// read only where the observer's reference count cannot be asked.
    @inline(__always)
    func observerLives(weakObserver: @autoclosure () -> AnyObject?) -> Bool {
        #if !canImport(ObjectiveC)
        return !gca_swift_object_is_deinitializing(address)
        #else
        return weakObserver() != nil
        #endif
    }
}
