/// An object that receives key-value observing notifications, the counterpart of Foundation's
/// `observeValue(forKeyPath:of:change:context:)`.
///
/// The runtime holds observers weakly: an observer must be removed before it goes away. A notification that finds
/// its observer gone is the misuse ``KVOMisuse/Kind/observerDeallocated`` (in Foundation, a crash).
/// Notifications arrive synchronously on the thread that made the change, outside every runtime lock, so an
/// observer may add or remove observers or change values from inside the callback.
public protocol KeyValueObserver: AnyObject {
    /// Called for every notification this observer registered for.
    ///
    /// - Parameters:
    ///   - keyPath: The key path passed to `addObserver`.
    ///   - object: The object the observer was added to.
    ///   - change: What changed; its content depends on the observance's options.
    ///   - context: The context pointer passed to `addObserver`.
    func observeValue(
        forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
    )
}
