/// One step a stress worker performs, on slots (controller `c`, object `o`) rather than concrete instances, so a
/// scenario is independent of how the run unfolds.
///
/// Every operation has a one-line text form that seed files store and a person can read:
/// `observe c3 o1 sum [initial,new] then unobserve-self`, `observe c0 o2 k0 [new] context 2`,
/// `observe c1 o0 \.peer!.k0 []`, `mutate o2 k0`, `link o0 o3`, `announce o1 level around insert items`,
/// `replace o2 items`, `is-observing c1 o2 link.k0`, `release-controller c5`.
public enum Operation: Hashable, Sendable {
    /// Observe `key` of object slot `object` through controller slot `controller` with a handler; `action` runs
    /// inside the handler on its first notification.
    case observe(controller: Int, object: Int, key: StressKey, options: StressOptions, action: HandlerAction)
    /// Observe `key` through the forwarding variant: notifications go to the observer's own `observeValue` with
    /// context number `context` (registrations that differ only by context are duplicates for the guard, separate
    /// registrations for the raw runtime).
    case observeForwarding(
        controller: Int, object: Int, key: StressKey, options: StressOptions, context: Int, action: HandlerAction)
    /// Observe a Swift key path (some have no name and must be refused without being evaluated).
    case observeTyped(controller: Int, object: Int, key: StressTypedKey, options: StressOptions, action: HandlerAction)
    /// Stop observing one key path.
    case unobserve(controller: Int, object: Int, key: StressKey)
    /// Stop observing one key path registered with context number `context` (the raw runtime removes the most
    /// recent registration with that context; the guard has one registration per key path).
    case unobserveContext(controller: Int, object: Int, key: StressKey, context: Int)
    /// Stop observing a Swift key path.
    case unobserveTyped(controller: Int, object: Int, key: StressTypedKey)
    /// Stop observing one key path twice in a row (the second is a double removal).
    case doubleUnobserve(controller: Int, object: Int, key: StressKey)
    /// Stop observing every key path of one object.
    case unobserveObject(controller: Int, object: Int)
    /// Stop observing everything through one controller.
    case unobserveAll(controller: Int)
    /// Set a stored key (`k0`, `k1`, `k2`) or `gauge` to a fresh, unique value.
    case mutate(object: Int, key: StressKey)
    /// Set the middle object (`link`) of slot `object`'s object.
    case link(object: Int, to: LinkTarget)
    /// Announce a change of `level` by hand (`willChangeValue` / `didChangeValue`); with `nested`, an insertion into
    /// `items` (itself announced with indexes) happens inside it.
    case announce(object: Int, nested: Bool)
    /// Insert, remove or replace elements of `items` through the to-many helpers.
    case changeItems(object: Int, change: ItemsChange)
    /// Ask a controller how many registrations it holds.
    case countRegistrations(controller: Int)
    /// Ask a controller whether it observes `key` of an object.
    case isObserving(controller: Int, object: Int, key: StressKey)
    /// Ask a controller which key paths of an object it observes.
    case observedKeyPaths(controller: Int, object: Int)
    /// Drop the observer of a controller slot (and with it its controller); the slot gets new ones.
    case releaseObserver(controller: Int)
    /// Drop the controller of a slot, keeping its observer; the slot gets a new controller.
    case releaseController(controller: Int)
    /// Drop the object in a slot; the slot gets a new object.
    case releaseObject(object: Int)
}

/// What a `link` operation sets the middle object to.
public enum LinkTarget: Hashable, Sendable {
    /// The object in slot `object` (which must come after the linking slot, so links never form a cycle).
    case object(Int)
    /// Nothing: `link.k0` reads as nil.
    case none
    /// A fresh object of another class, which has no `k0`: the chain stops making sense.
    case stranger

    /// `o3`, `nil` or `stranger`.
    public var text: String {
        switch self {
        case .object(let slot): return "o\(slot)"
        case .none: return "nil"
        case .stranger: return "stranger"
        }
    }

    init?(text: String) {
        switch text {
        case "nil": self = .none
        case "stranger": self = .stranger
        default:
            guard let slot = OperationWords.slot(text, "o") else { return nil }
            self = .object(slot)
        }
    }
}

/// How an ``Operation/changeItems(object:change:)`` changes the ordered to-many `items`.
public enum ItemsChange: String, CaseIterable, Hashable, Sendable {
    /// Insert two new elements, at the front and at the end (skipped when `items` is full).
    case insert
    /// Remove the first and the last element (skipped when `items` is empty).
    case remove
    /// Replace the first and the last element with new ones (skipped when `items` is empty).
    case replace
}

/// What a handler does on the first notification it receives.
public enum HandlerAction: Hashable, Sendable {
    /// Nothing.
    case none
    /// Unobserve the key path that notified (inside the `.initial` handler: the radar 34307466 case).
    case unobserveSelf
    /// Unobserve everything through the notified controller.
    case unobserveAll
    /// Release the notified controller (drop the last reference to it) from inside its own handler.
    case releaseController
    /// Mutate an object key from inside the handler.
    case mutate(object: Int, key: StressKey)
    /// Observe another key path from inside the handler.
    case observe(object: Int, key: StressKey)
    /// Take the object out of slot `object` and keep it in the handler: from then on the handler holds the last
    /// reference, so dropping the registration releases the object. When the same controller observes that object
    /// weakly, this is the case of an object deinitializing while its controller drops the handler).
    case adopt(object: Int)
}

extension Operation: CustomStringConvertible {
    /// The one-line text form.
    public var description: String {
        switch self {
        case .observe(let c, let o, let key, let options, let action):
            return "observe c\(c) o\(o) \(key.name) \(options.text)" + Self.suffix(action)
        case .observeForwarding(let c, let o, let key, let options, let context, let action):
            return "observe c\(c) o\(o) \(key.name) \(options.text) context \(context)" + Self.suffix(action)
        case .observeTyped(let c, let o, let key, let options, let action):
            return "observe c\(c) o\(o) \(key.text) \(options.text)" + Self.suffix(action)
        case .unobserve(let c, let o, let key): return "unobserve c\(c) o\(o) \(key.name)"
        case .unobserveContext(let c, let o, let key, let context): return "unobserve c\(c) o\(o) \(key.name) context \(context)"
        case .unobserveTyped(let c, let o, let key): return "unobserve c\(c) o\(o) \(key.text)"
        case .doubleUnobserve(let c, let o, let key): return "double-unobserve c\(c) o\(o) \(key.name)"
        case .unobserveObject(let c, let o): return "unobserve-object c\(c) o\(o)"
        case .unobserveAll(let c): return "unobserve-all c\(c)"
        case .mutate(let o, let key): return "mutate o\(o) \(key.name)"
        case .link(let o, let target): return "link o\(o) \(target.text)"
        case .announce(let o, let nested): return "announce o\(o) level" + (nested ? " around insert items" : "")
        case .changeItems(let o, let change): return "\(change.rawValue) o\(o) items"
        case .countRegistrations(let c): return "count c\(c)"
        case .isObserving(let c, let o, let key): return "is-observing c\(c) o\(o) \(key.name)"
        case .observedKeyPaths(let c, let o): return "observed-key-paths c\(c) o\(o)"
        case .releaseObserver(let c): return "release-observer c\(c)"
        case .releaseController(let c): return "release-controller c\(c)"
        case .releaseObject(let o): return "release-object o\(o)"
        }
    }

    private static func suffix(_ action: HandlerAction) -> String {
        action == .none ? "" : " then \(action)"
    }

    /// Parses the text form; `nil` if `text` is not one (``OperationParser`` says why).
    public init?(_ text: String) {
        guard let operation = try? OperationParser.operation(text[...]) else { return nil }
        self = operation
    }

    /// The largest controller and object slot the operation names (`-1` where it names none).
    package var slotsUsed: (controller: Int, object: Int) {
        switch self {
        case .observe(let c, let o, _, _, let action), .observeForwarding(let c, let o, _, _, _, let action),
            .observeTyped(let c, let o, _, _, let action):
            return (c, max(o, action.objectSlot ?? -1))
        case .unobserve(let c, let o, _), .unobserveContext(let c, let o, _, _), .unobserveTyped(let c, let o, _),
            .doubleUnobserve(let c, let o, _), .unobserveObject(let c, let o), .isObserving(let c, let o, _),
            .observedKeyPaths(let c, let o):
            return (c, o)
        case .unobserveAll(let c), .releaseObserver(let c), .releaseController(let c), .countRegistrations(let c):
            return (c, -1)
        case .link(let o, let target):
            if case .object(let other) = target { return (-1, max(o, other)) }
            return (-1, o)
        case .mutate(let o, _), .releaseObject(let o), .announce(let o, _), .changeItems(let o, _): return (-1, o)
        }
    }

    /// Why the operation can never make sense whatever the configuration, or `nil`.
    var problem: String? {
        if case .link(let o, .object(let other)) = self, other <= o {
            return "a link must go to a later object slot than its own (links never form a cycle)"
        }
        switch self {
        case .observeForwarding(_, _, _, _, let context, _), .unobserveContext(_, _, _, let context):
            return (1...OperationWords.contexts).contains(context)
                ? nil : "contexts are numbered 1 to \(OperationWords.contexts)"
        default:
            return nil
        }
    }
}

extension HandlerAction: CustomStringConvertible {
    /// `unobserve-self`, `unobserve-all`, `release-controller`, `mutate o2 k1`, `observe o2 k0`, `adopt o3`, or
    /// `none`.
    public var description: String {
        switch self {
        case .none: return "none"
        case .unobserveSelf: return "unobserve-self"
        case .unobserveAll: return "unobserve-all"
        case .releaseController: return "release-controller"
        case .mutate(let o, let key): return "mutate o\(o) \(key.name)"
        case .observe(let o, let key): return "observe o\(o) \(key.name)"
        case .adopt(let o): return "adopt o\(o)"
        }
    }

    /// Parses the text form; `nil` if `text` is not one (``OperationParser`` says why).
    public init?(_ text: String) {
        guard let action = try? OperationParser.action(text[...]) else { return nil }
        self = action
    }

    /// The object slot the action names, if any.
    package var objectSlot: Int? {
        switch self {
        case .mutate(let o, _), .observe(let o, _), .adopt(let o): return o
        case .none, .unobserveSelf, .unobserveAll, .releaseController: return nil
        }
    }
}

/// Facts of the text form shared by its parser and its users.
enum OperationWords {
    /// Context numbers run from 1 to this.
    static let contexts = 3

    /// A slot number written with `prefix` (`c3`, `o1`).
    static func slot(_ word: String, _ prefix: Character) -> Int? {
        OperationParser.slot(word, prefix)
    }
}
