import Foundation
import GuardCore

// Models for key-value coding's setters, weak and unowned properties, collections and collection operators.

/// What a class-bound existential property holds.
protocol TaggedDelegate: AnyObject {
    var tag: Int { get }
}

/// A delegate that is an observable object.
final class DelegateTarget: KVOObject, TaggedDelegate, @unchecked Sendable {
    @Observed var age = 0
    let tag: Int
    private let onDeinit: (@Sendable () -> Void)?

    init(tag: Int = 0, onDeinit: (@Sendable () -> Void)? = nil) {
        self.tag = tag
        self.onDeinit = onDeinit
        super.init()
    }

    deinit { onDeinit?() }
}

/// Weak and unowned stored properties of every shape key-value coding reads.
final class ReferenceHolder: KVOObject, @unchecked Sendable {
    weak var delegate: DelegateTarget?
    weak var taggedDelegate: (any TaggedDelegate)?
    weak var anyDelegate: AnyObject?
    unowned var owner: DelegateTarget
    unowned let fixedOwner: DelegateTarget
    unowned var maybeOwner: DelegateTarget?
    unowned(unsafe) var unsafeOwner: DelegateTarget
    @Observed var count = 0

    init(owner: DelegateTarget) {
        self.owner = owner
        self.fixedOwner = owner
        self.unsafeOwner = owner
        super.init()
    }
}

/// A generic class with a weak property of its parameter's type.
final class GenericReferenceHolder<Target: AnyObject>: KVOObject, @unchecked Sendable {
    weak var target: Target?
}

/// Every kind of property `setValue(_:forKey:)` meets.
class SettableModel: KVOObject, @unchecked Sendable {
    @Observed var age = 0
    @Observed var price = 0.0
    @Observed var nickname: String? = nil
    @Observed var child: SettableModel? = nil
    @Observed var quiet = 0
    @Observed var firstName = ""
    var plain = "plain"
    var watched = 0 { didSet { watchedSets += 1 } }
    var watchedSets = 0
    let constant = 7
    lazy var lazyNumber: Int = { lazyInitializerRuns += 1; return 41 }()
    var lazyInitializerRuns = 0

    var fullName: String { "\(firstName)!" }

    override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        key == "quiet" ? false : super.automaticallyNotifiesObservers(forKey: key)
    }

    override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
        key == "fullName" ? ["firstName"] : super.keyPathsForValuesAffectingValue(forKey: key)
    }

    override func value(forKey key: String) -> Any? {
        key == "fullName" ? fullName : super.value(forKey: key)
    }
}

/// Overrides the setters' hooks as Foundation lets a class: a computed key set by hand, nil stored as 0.
final class CustomSettableModel: SettableModel, @unchecked Sendable {
    override func setValue(_ value: Any?, forKey key: String) {
        guard key == "fullName" else { return super.setValue(value, forKey: key) }
        setValue((value as? String).map { String($0.dropLast()) }, forKey: "firstName")
    }

    override func setNilValueForKey(_ key: String) {
        key == "age" ? setValue(0, forKey: key) : super.setNilValueForKey(key)
    }
}

/// An element of the collections below.
final class Book: KVOObject, @unchecked Sendable {
    @Observed var title: String
    @Observed var pages: Int
    @Observed var price: Double?
    @Observed var author: Author?
    @Observed var published: Date

    init(_ title: String, pages: Int, price: Double? = nil, author: Author? = nil, published: Date = .distantPast) {
        self.title = title
        self.pages = pages
        self.price = price
        self.author = author
        self.published = published
        super.init()
    }
}

final class Author: KVOObject, @unchecked Sendable {
    @Observed var name: String

    init(_ name: String) {
        self.name = name
        super.init()
    }
}

/// Collections of every kind key-value coding looks into.
final class Library: KVOObject, @unchecked Sendable {
    @Observed var books: [Book] = []
    @Observed var spare: [Book]? = nil
    @Observed var numbers: [Int] = []
    @Observed var amounts: [Decimal] = []
    @Observed var shelves: [[Int]] = []
    @Observed var tags: Set<String> = []
    @Observed var branch: Library? = nil
    /// A computed key whose value may be a collection (kept behind no lock; tests set it on one thread).
    var storedShelf: Any? = nil

    override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
        key == "titles" ? ["books.title"] : super.keyPathsForValuesAffectingValue(forKey: key)
    }

    override func value(forKey key: String) -> Any? {
        switch key {
        case "shelf": return storedShelf
        case "titles": return value(forKeyPath: "books.title")
        case "loop": return [self]
        default: return super.value(forKey: key)
        }
    }

    /// Sets the computed `shelf`, announced by hand.
    func setShelf(_ shelf: Any?) {
        willChangeValue(forKey: "shelf")
        storedShelf = shelf
        didChangeValue(forKey: "shelf")
    }
}
