import GuardCoreAtomics

/// Whether an object is running its deinit, asked by code that is handed an object it might keep.
///
/// An object's deinit may pass `self` anywhere, and a strong reference to it that outlives the deinit stops the
/// process ("deallocated with non-zero retain count"). A caller still holding the object otherwise keeps it from
/// starting its deinit, so the answer cannot change while the caller uses the object: checking once is enough.
enum ObjectDeinitialization {
    /// Whether `object`, which the caller holds (or whose deinit is running), is running its deinit.
    ///
    /// For a native Swift object (every object without Objective-C interoperability, and a ``KVOObject`` everywhere)
    /// the Swift runtime answers from the object's reference count: no allocation. Any other object is asked with a
    /// weak reference (see ``isDeinitializingByWeakReference(_:)``).
    @inline(__always)
    static func isDeinitializing(_ object: AnyObject) -> Bool {
        guard isNativeSwiftObject(object) else { return isDeinitializingByWeakReference(object) }
        return gca_swift_object_is_deinitializing(Unmanaged.passUnretained(object).toOpaque())
    }

    /// Whether a weak reference taken to `object` reads `nil`, which it does from the start of its deinit (Swift and
    /// Objective-C alike). Taking one gives a native Swift object a side table for the rest of its life, which makes
    /// its retains and releases slower: used only for objects the runtime cannot be asked about.
    static func isDeinitializingByWeakReference(_ object: AnyObject) -> Bool {
        weak let reference = object
        return reference == nil
    }

    /// Whether `object` is certainly a native Swift object, whose reference count the Swift runtime can read.
    @inline(__always)
    private static func isNativeSwiftObject(_ object: AnyObject) -> Bool {
        #if canImport(ObjectiveC)
        // An `NSObject` subclass is an Objective-C object; a `KVOObject` is a pure Swift class.
        return object is KVOObject
        #else
        return true
        #endif
    }
}
