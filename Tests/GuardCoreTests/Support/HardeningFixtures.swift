import Foundation
import GuardCore

// Models for the hardening tests: chains through optional and polymorphic middle objects, weak and unowned
// stored properties, computed keys behind a lock, dotted dependent keys, non-ASCII keys; and
// noncopyable stored properties.

/// The root of a chain whose middle object may be of any observable class (one without the leaf key included).
final class ChainRoot: KVOObject, @unchecked Sendable {
    @Observed var middle: KVOObject? = nil
    @Observed var node: ChainNode? = nil
}

/// A middle object that has the leaf key.
final class ChainNode: KVOObject, @unchecked Sendable {
    @Observed var leaf = 0
    @Observed var next: ChainLeafHolder? = nil
}

/// The last link of `\.node!.next!.value`.
final class ChainLeafHolder: KVOObject, @unchecked Sendable {
    @Observed var value = 0
}

/// A middle object without the leaf key.
final class ChainStranger: KVOObject, @unchecked Sendable {
    @Observed var unrelated = 0
}

/// Stored properties that key-value coding must not read as strong references.
final class DelegateHolder: KVOObject, @unchecked Sendable {
    weak var delegate: Person?
    unowned var owner: Person
    unowned(unsafe) var unsafeOwner: Person
    var strongFriend: Person?
    @Observed var count = 0

    init(delegate: Person?, owner: Person) {
        self.delegate = delegate
        self.owner = owner
        self.unsafeOwner = owner
        super.init()
    }
}

/// A computed middle key backed by a lock, announced by hand: two threads can set it at once without a data race,
/// which is what lets dotted re-wiring race with itself.
final class LockedMiddleRoot: KVOObject, @unchecked Sendable {
    private let lock = NSLock()
    private var storedMiddle: ChainNode?

    override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        key == "middle" ? false : super.automaticallyNotifiesObservers(forKey: key)
    }

    override func value(forKey key: String) -> Any? {
        key == "middle" ? lock.withLock { storedMiddle } : super.value(forKey: key)
    }

    func setMiddle(_ middle: ChainNode?) {
        willChangeValue(forKey: "middle")
        lock.withLock { storedMiddle = middle }
        didChangeValue(forKey: "middle")
    }
}

/// `summary` depends on the dotted path `account.balance`.
final class Portfolio: KVOObject, @unchecked Sendable {
    @Observed var account: Account? = nil

    var summary: String { "balance \(account?.balance ?? -1)" }

    override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
        key == "summary" ? ["account.balance"] : super.keyPathsForValuesAffectingValue(forKey: key)
    }

    override func value(forKey key: String) -> Any? {
        key == "summary" ? summary : super.value(forKey: key)
    }
}

/// Properties named outside ASCII.
final class EmojiModel: KVOObject, @unchecked Sendable {
    @Observed var 😀 = 0
    @Observed var größe = 0
}

/// Answers every key that starts with `dynamic-` (like a dictionary-backed model).
final class OpenEndedModel: KVOObject, @unchecked Sendable {
    override func value(forKey key: String) -> Any? {
        key.hasPrefix("dynamic-") ? key.count : super.value(forKey: key)
    }
}

/// A node with a computed key made of a lone combining accent (U+0301), announced by hand.
final class AccentNode: KVOObject, @unchecked Sendable {
    static let accentKey = "\u{301}"
    private let lock = NSLock()
    private var storedValue = 0

    override func value(forKey key: String) -> Any? {
        key == Self.accentKey ? lock.withLock { storedValue } : super.value(forKey: key)
    }

    func setAccentValue(_ value: Int) {
        willChangeValue(forKey: Self.accentKey)
        lock.withLock { storedValue = value }
        didChangeValue(forKey: Self.accentKey)
    }
}

final class AccentRoot: KVOObject, @unchecked Sendable {
    @Observed var a: AccentNode? = nil
}

/// A value that must not be copied, with storage of its own.
struct FileToken: ~Copyable {
    var descriptor: Int32 = 7
}

/// A value that must not be copied, without storage.
struct EmptyToken: ~Copyable {}

/// Noncopyable stored properties (which reflection reports as `()`), a property declared as `()`, and readable
/// properties around them.
final class NoncopyableHolder: KVOObject, @unchecked Sendable {
    @Observed var level = 0
    var token = FileToken()
    var marker = EmptyToken()
    var nothing: () = ()
    var after = 5
}
