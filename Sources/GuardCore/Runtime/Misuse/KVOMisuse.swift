/// A use of the key-value observing API that Foundation answers with an exception or a crash.
///
/// Every misuse goes to the process-wide ``MisusePolicy`` (see ``RuntimeMonitor/misusePolicy``) and is counted, so a
/// test or the stress harness can assert that none happened.
public struct KVOMisuse: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of misuse the runtime detects.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// `removeObserver` found no matching registration (Foundation: `NSRangeException`).
        case notRegistered
        /// `didChangeValue(forKey:)` had no matching `willChangeValue(forKey:)` on the same thread.
        case unpairedDidChange
        /// A notification was due to an observer that has been deallocated (Foundation: message to a freed object).
        case observerDeallocated
        /// An object deinitialized while observers were still registered with it.
        case deallocatedWhileObserved
        /// A key is neither a stored property, an `@Observed` property, nor answered by `value(forKey:)`
        /// (Foundation: `NSUnknownKeyException`).
        case unknownKey
        /// An ordered to-many helper (``KeyValueObservable/insert(_:at:into:)``,
        /// ``KeyValueObservable/removeElements(at:from:)``, ``KeyValueObservable/replaceElements(at:with:in:)``) got
        /// an index beyond the array's bounds (Foundation: `NSRangeException`) or a number of elements that differs
        /// from the number of indexes (Foundation: `NSInvalidArgumentException`). Nothing is announced or changed.
        case invalidIndexes
        /// A key path to observe, or one declared to affect it, has more than ``KeyPathSyntax/maximumGuardedComponents``
        /// (128) components, or a chain of dotted key paths and dependencies nests deeper than that on one thread.
        /// Following it could overflow the thread's stack (Foundation follows it until it does): nothing is registered,
        /// or the chain reads as broken where the limit is reached.
        case keyPathTooLong
        /// ``KVOObject/setValue(_:forKey:)`` got a value its property cannot hold, or a collection operator in a
        /// key-value coding read met a value it cannot work with (`@sum` of text, `@max` of values that cannot be
        /// compared) (Foundation: `NSInvalidArgumentException`). The message names the type expected. Nothing is
        /// stored; the read gives `nil`.
        case typeMismatch
        /// ``KVOObject/setValue(_:forKey:)`` got `nil` for a property that is not optional (Foundation:
        /// `NSInvalidArgumentException` from `setNilValueForKey:`). Nothing is stored.
        case nilValueForNonOptional
        /// A key path to observe (or one declared to affect it) goes through an array or a set (`items.name`), or
        /// uses a collection operator (`items.@count`). Foundation's collections cannot be observed
        /// (`NSInvalidArgumentException`: `[<__NSArrayM 0x…> addObserver:forKeyPath:options:context:] is not
        /// supported. Key path: name`). Nothing is registered. Read such a key path with
        /// ``KVOObject/value(forKeyPath:)`` and observe the collection's own key (`items`) instead.
        case keyPathThroughCollection
        /// A key-value coding read names a collection operator Foundation does not have (`items.@average.price`),
        /// or one that needs a right key path without one (`items.@sum`) (Foundation: `NSUnknownKeyException`). The
        /// read gives `nil`.
        case unknownCollectionOperator
        /// A ``KVOObject`` was asked for a key it does not answer in a process whose Swift runtime offers no
        /// reflection (Apple systems older than iOS 13.4 / macOS 10.15.4 / tvOS 13.4 / watchOS 6.2), where no stored
        /// property can be read (Foundation: `NSUnknownKeyException`). Reported in place of ``unknownKey``, which
        /// would blame the key; the process also writes one line to standard error the first time it looks for
        /// stored properties. Override ``KVOObject/value(forKey:)`` to answer keys there.
        case reflectionUnavailable
    }

    /// What went wrong.
    public let kind: Kind
    /// The exception Foundation raises for it, e.g. `NSRangeException`.
    public let exceptionName: String
    /// Foundation's wording, with the objects rendered as `<Type: 0xADDRESS>`.
    public let message: String
    /// The key or key path involved.
    public let keyPath: String
    /// The observed object, as `<Type: 0xADDRESS>`.
    public let object: String
    /// The observer, as `<Type: 0xADDRESS>`, when one is involved.
    public let observer: String?
    /// The thread the misuse happened on.
    public let thread: String

    /// Creates a misuse record.
    public init(
        kind: Kind, exceptionName: String, message: String, keyPath: String, object: String, observer: String?,
        thread: String
    ) {
        self.kind = kind
        self.exceptionName = exceptionName
        self.message = message
        self.keyPath = keyPath
        self.object = object
        self.observer = observer
        self.thread = thread
    }

    /// What happened, for a misuse the process survived (a recorded or logged one, see ``MisusePolicy``):
    /// `NAME, reason: 'MESSAGE' (continuing under the misuse policy)`, with Foundation's exception name and wording.
    /// It never claims the app terminates; only ``terminationMessage`` does.
    public var description: String {
        "\(exceptionName), reason: '\(message)' (continuing under the misuse policy)"
    }

    /// `*** Terminating app due to uncaught exception 'NAME', reason: 'MESSAGE'`, as Foundation prints it: the
    /// message ``MisusePolicy/trap`` stops the process with.
    public var terminationMessage: String {
        "*** Terminating app due to uncaught exception '\(exceptionName)', reason: '\(message)'"
    }
}
