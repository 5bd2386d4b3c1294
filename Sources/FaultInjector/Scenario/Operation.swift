/// One step a stress worker performs, on slots (controller `c`, object `o`) rather than concrete instances, so a
/// scenario is independent of how the run unfolds.
///
/// Every operation has a one-line text form that seed files store and a person can read:
/// `observe c3 o1 sum [initial,new] then unobserve-self`, `mutate o2 k0`, `release-controller c5`.
public enum Operation: Hashable, Sendable {
    /// Observe `key` of object slot `object` through controller slot `controller`; `action` runs inside the
    /// handler on its first notification.
    case observe(controller: Int, object: Int, key: StressKey, options: StressOptions, action: HandlerAction)
    /// Stop observing one key path.
    case unobserve(controller: Int, object: Int, key: StressKey)
    /// Stop observing one key path twice in a row (the second is a double removal).
    case doubleUnobserve(controller: Int, object: Int, key: StressKey)
    /// Stop observing every key path of one object.
    case unobserveObject(controller: Int, object: Int)
    /// Stop observing everything through one controller.
    case unobserveAll(controller: Int)
    /// Set a stored key to a fresh, unique value.
    case mutate(object: Int, key: StressKey)
    /// Drop the observer of a controller slot (and with it its controller); the slot gets new ones.
    case releaseObserver(controller: Int)
    /// Drop the controller of a slot, keeping its observer; the slot gets a new controller.
    case releaseController(controller: Int)
    /// Drop the object in a slot; the slot gets a new object.
    case releaseObject(object: Int)
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
}

extension Operation: CustomStringConvertible {
    /// The one-line text form.
    public var description: String {
        switch self {
        case .observe(let c, let o, let key, let options, let action):
            let suffix = action == .none ? "" : " then \(action)"
            return "observe c\(c) o\(o) \(key.name) \(options.text)\(suffix)"
        case .unobserve(let c, let o, let key): return "unobserve c\(c) o\(o) \(key.name)"
        case .doubleUnobserve(let c, let o, let key): return "double-unobserve c\(c) o\(o) \(key.name)"
        case .unobserveObject(let c, let o): return "unobserve-object c\(c) o\(o)"
        case .unobserveAll(let c): return "unobserve-all c\(c)"
        case .mutate(let o, let key): return "mutate o\(o) \(key.name)"
        case .releaseObserver(let c): return "release-observer c\(c)"
        case .releaseController(let c): return "release-controller c\(c)"
        case .releaseObject(let o): return "release-object o\(o)"
        }
    }

    /// Parses the text form; `nil` if `text` is not one.
    public init?(_ text: String) {
        let words = text.split(separator: " ").map(String.init)
        guard let verb = words.first else { return nil }
        func slot(_ index: Int, _ prefix: Character) -> Int? {
            guard index < words.count, words[index].first == prefix else { return nil }
            return Int(words[index].dropFirst()).flatMap { $0 >= 0 ? $0 : nil }
        }
        func key(_ index: Int) -> StressKey? {
            index < words.count ? StressKey(name: words[index]) : nil
        }
        switch (verb, words.count) {
        case ("observe", 5), ("observe", 7), ("observe", 9):
            guard let c = slot(1, "c"), let o = slot(2, "o"), let k = key(3), let options = StressOptions(text: words[4])
            else { return nil }
            var action = HandlerAction.none
            if words.count > 5 {
                guard words[5] == "then", let parsed = HandlerAction(words[6...].joined(separator: " ")) else {
                    return nil
                }
                action = parsed
            }
            self = .observe(controller: c, object: o, key: k, options: options, action: action)
        case ("unobserve", 4):
            guard let c = slot(1, "c"), let o = slot(2, "o"), let k = key(3) else { return nil }
            self = .unobserve(controller: c, object: o, key: k)
        case ("double-unobserve", 4):
            guard let c = slot(1, "c"), let o = slot(2, "o"), let k = key(3) else { return nil }
            self = .doubleUnobserve(controller: c, object: o, key: k)
        case ("unobserve-object", 3):
            guard let c = slot(1, "c"), let o = slot(2, "o") else { return nil }
            self = .unobserveObject(controller: c, object: o)
        case ("unobserve-all", 2):
            guard let c = slot(1, "c") else { return nil }
            self = .unobserveAll(controller: c)
        case ("mutate", 3):
            guard let o = slot(1, "o"), let k = key(2), k != .sum else { return nil }
            self = .mutate(object: o, key: k)
        case ("release-observer", 2):
            guard let c = slot(1, "c") else { return nil }
            self = .releaseObserver(controller: c)
        case ("release-controller", 2):
            guard let c = slot(1, "c") else { return nil }
            self = .releaseController(controller: c)
        case ("release-object", 2):
            guard let o = slot(1, "o") else { return nil }
            self = .releaseObject(object: o)
        default:
            return nil
        }
    }

    /// The largest controller and object slot the operation names (`-1` where it names none).
    var slotsUsed: (controller: Int, object: Int) {
        switch self {
        case .observe(let c, let o, _, _, let action):
            switch action {
            case .mutate(let o2, _), .observe(let o2, _): return (c, max(o, o2))
            default: return (c, o)
            }
        case .unobserve(let c, let o, _), .doubleUnobserve(let c, let o, _), .unobserveObject(let c, let o):
            return (c, o)
        case .unobserveAll(let c), .releaseObserver(let c), .releaseController(let c): return (c, -1)
        case .mutate(let o, _), .releaseObject(let o): return (-1, o)
        }
    }
}

extension HandlerAction: CustomStringConvertible {
    /// `unobserve-self`, `unobserve-all`, `release-controller`, `mutate o2 k1`, `observe o2 k0`, or `none`.
    public var description: String {
        switch self {
        case .none: return "none"
        case .unobserveSelf: return "unobserve-self"
        case .unobserveAll: return "unobserve-all"
        case .releaseController: return "release-controller"
        case .mutate(let o, let key): return "mutate o\(o) \(key.name)"
        case .observe(let o, let key): return "observe o\(o) \(key.name)"
        }
    }

    /// Parses the text form; `nil` if `text` is not one.
    public init?(_ text: String) {
        let words = text.split(separator: " ").map(String.init)
        switch (words.first, words.count) {
        case ("none", 1): self = .none
        case ("unobserve-self", 1): self = .unobserveSelf
        case ("unobserve-all", 1): self = .unobserveAll
        case ("release-controller", 1): self = .releaseController
        case ("mutate", 3), ("observe", 3):
            guard words[1].first == "o", let o = Int(words[1].dropFirst()), o >= 0, let key = StressKey(name: words[2])
            else { return nil }
            if words[0] == "mutate" {
                guard key != .sum else { return nil }
                self = .mutate(object: o, key: key)
            } else {
                self = .observe(object: o, key: key)
            }
        default: return nil
        }
    }
}
