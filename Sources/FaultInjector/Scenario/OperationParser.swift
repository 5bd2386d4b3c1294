/// Where an operation's text goes wrong: the column of the word at fault and what is wrong with it, in one sentence
/// that says what was expected (`unknown option "inital" (expected one of: initial, new, old, prior)`).
public struct OperationSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The column (from 1, counted in characters of the line) where the problem starts.
    public var column: Int
    /// What is wrong and what was expected.
    public var message: String

    /// `column 12: unknown option ...`.
    public var description: String { "column \(column): \(message)" }
}

/// Reads the one-line text form of an ``Operation`` (and of a ``HandlerAction``) word by word, saying exactly where
/// and why a text is not one. ``Operation/init(_:)`` and ``HandlerAction/init(_:)`` are this parser without the
/// reasons; seed files and text scenarios share it, so they read one grammar.
///
/// Words are separated by spaces or tabs; an options list in brackets is one word even with spaces inside
/// (`[initial, new]`).
struct OperationParser {
    /// One word of the text and the column it starts at.
    struct Word {
        let text: String
        let column: Int
    }

    private let words: [Word]
    private var position = 0
    /// The column just past the text, where a missing word is reported.
    private let endColumn: Int

    /// A parser of `text`, whose first character is at column `column` of its line.
    init(_ text: Substring, column: Int = 1) {
        var words: [Word] = []
        var current = ""
        var start = column
        var inBrackets = false
        var col = column
        for character in text {
            if (character == " " || character == "\t") && !inBrackets {
                if !current.isEmpty { words.append(Word(text: current, column: start)) }
                current = ""
            } else {
                if current.isEmpty {
                    start = col
                    inBrackets = character == "["
                } else if character == "]" {
                    inBrackets = false
                }
                current.append(character)
            }
            col += 1
        }
        if !current.isEmpty { words.append(Word(text: current, column: start)) }
        self.words = words
        endColumn = col
    }

    /// The operation `text` reads as.
    static func operation(_ text: Substring, column: Int = 1) throws(OperationSyntaxError) -> Operation {
        var parser = OperationParser(text, column: column)
        let operation = try parser.operation()
        try parser.expectEnd()
        return operation
    }

    /// The handler action `text` reads as.
    static func action(_ text: Substring, column: Int = 1) throws(OperationSyntaxError) -> HandlerAction {
        var parser = OperationParser(text, column: column)
        let action = try parser.action(after: nil)
        try parser.expectEnd()
        return action
    }

    // MARK: Operations

    /// Every verb, in the order the reference lists them.
    static let verbs = [
        "observe", "unobserve", "double-unobserve", "unobserve-object", "unobserve-all", "mutate", "link", "announce",
        "insert", "remove", "replace", "count", "is-observing", "observed-key-paths", "release-observer",
        "release-controller", "release-object",
    ]

    private mutating func operation() throws(OperationSyntaxError) -> Operation {
        guard let verb = next() else { throw error(at: endColumn, "an empty operation (expected one of: \(Self.verbs.joined(separator: ", ")))") }
        switch verb.text {
        case "observe": return try observe()
        case "unobserve": return try unobserve()
        case "double-unobserve":
            return .doubleUnobserve(controller: try slot("c"), object: try slot("o"), key: try key(named: true))
        case "unobserve-object": return .unobserveObject(controller: try slot("c"), object: try slot("o"))
        case "unobserve-all": return .unobserveAll(controller: try slot("c"))
        case "mutate":
            let o = try slot("o")
            return .mutate(object: o, key: try key(in: StressKey.mutated, role: "mutate sets"))
        case "link": return .link(object: try slot("o"), to: try linkTarget())
        case "announce": return try announce()
        case "insert", "remove", "replace":
            let o = try slot("o")
            try expect("items", "\(verb.text) changes items (\(verb.text) oN items)")
            return .changeItems(object: o, change: ItemsChange(rawValue: verb.text)!)
        case "count": return .countRegistrations(controller: try slot("c"))
        case "is-observing":
            return .isObserving(controller: try slot("c"), object: try slot("o"), key: try key(named: true))
        case "observed-key-paths": return .observedKeyPaths(controller: try slot("c"), object: try slot("o"))
        case "release-observer": return .releaseObserver(controller: try slot("c"))
        case "release-controller": return .releaseController(controller: try slot("c"))
        case "release-object": return .releaseObject(object: try slot("o"))
        default:
            throw error(at: verb.column, "unknown operation \"\(verb.text)\"" + Self.suggestion(verb.text, Self.verbs)
                + " (expected one of: \(Self.verbs.joined(separator: ", ")))")
        }
    }

    /// `observe cC oO KEY [OPTIONS] [context N] [then ACTION]`, after the verb.
    private mutating func observe() throws(OperationSyntaxError) -> Operation {
        let c = try slot("c")
        let o = try slot("o")
        let key = try anyKey()
        let options = try self.options()
        var context: (number: Int, column: Int)?
        if peek()?.text == "context" {
            let word = next()!
            context = (try contextNumber(), word.column)
        }
        var action = HandlerAction.none
        if let then = peek(), then.text == "then" {
            _ = next()
            action = try self.action(after: then)
        }
        switch key {
        case .typed(let typed):
            if let context {
                throw error(at: context.column, "a Swift key path (\(typed.text)) takes no context: contexts belong to string key paths")
            }
            return .observeTyped(controller: c, object: o, key: typed, options: options, action: action)
        case .named(let name):
            if let context {
                return .observeForwarding(
                    controller: c, object: o, key: name, options: options, context: context.number, action: action)
            }
            return .observe(controller: c, object: o, key: name, options: options, action: action)
        }
    }

    /// `unobserve cC oO KEY [context N]`, after the verb.
    private mutating func unobserve() throws(OperationSyntaxError) -> Operation {
        let c = try slot("c")
        let o = try slot("o")
        switch try anyKey() {
        case .typed(let typed):
            if let word = peek(), word.text == "context" {
                throw error(at: word.column, "a Swift key path (\(typed.text)) takes no context: contexts belong to string key paths")
            }
            return .unobserveTyped(controller: c, object: o, key: typed)
        case .named(let key):
            guard let word = peek(), word.text == "context" else { return .unobserve(controller: c, object: o, key: key) }
            _ = next()
            return .unobserveContext(controller: c, object: o, key: key, context: try contextNumber())
        }
    }

    /// `announce oO level [around insert items]`, after the verb.
    private mutating func announce() throws(OperationSyntaxError) -> Operation {
        let o = try slot("o")
        try expect("level", "announce changes level by hand (announce oN level)")
        guard peek() != nil else { return .announce(object: o, nested: false) }
        for word in ["around", "insert", "items"] {
            try expect(word, "announce oN level takes nothing more, or \"around insert items\"")
        }
        return .announce(object: o, nested: true)
    }

    private mutating func linkTarget() throws(OperationSyntaxError) -> LinkTarget {
        let what = "link sets the middle object to a later object slot (o1, o2, ...), nil or stranger"
        guard let word = next() else { throw error(at: endColumn, "\(what); found the end of the line") }
        guard let target = LinkTarget(text: word.text) else { throw error(at: word.column, "\(what), not \"\(word.text)\"") }
        return target
    }

    // MARK: Handler actions

    /// Every handler action, as written.
    static let actions = [
        "none", "unobserve-self", "unobserve-all", "release-controller", "mutate oN KEY", "observe oN KEY", "adopt oN",
    ]

    /// The handler action of the remaining words (`then` is the word before them, if any).
    private mutating func action(after then: Word?) throws(OperationSyntaxError) -> HandlerAction {
        let list = "none, unobserve-self, unobserve-all, release-controller, mutate oN k0|k1|k2, observe oN KEY, adopt oN"
        guard let word = next() else {
            let start = then == nil ? "an empty handler action" : "\"then\" needs a handler action"
            throw error(at: endColumn, "\(start) (expected one of: \(list))")
        }
        switch word.text {
        case "none": return .none
        case "unobserve-self": return .unobserveSelf
        case "unobserve-all": return .unobserveAll
        case "release-controller": return .releaseController
        case "mutate":
            let o = try slot("o")
            return .mutate(object: o, key: try key(in: StressKey.storedIntegers, role: "a handler mutates"))
        case "observe":
            let o = try slot("o")
            return .observe(object: o, key: try key(named: true))
        case "adopt": return .adopt(object: try slot("o"))
        default:
            let names = ["none", "unobserve-self", "unobserve-all", "release-controller", "mutate", "observe", "adopt"]
            throw error(at: word.column, "unknown handler action \"\(word.text)\"" + Self.suggestion(word.text, names)
                + " (expected one of: \(list))")
        }
    }

    // MARK: Words

    private func peek() -> Word? {
        position < words.count ? words[position] : nil
    }

    private mutating func next() -> Word? {
        defer { position += 1 }
        return peek()
    }

    private func error(at column: Int, _ message: String) -> OperationSyntaxError {
        OperationSyntaxError(column: column, message: message)
    }

    /// Nothing may follow the operation.
    mutating func expectEnd() throws(OperationSyntaxError) {
        guard let word = peek() else { return }
        let actionWords = ["none", "unobserve-self", "unobserve-all", "release-controller", "adopt"]
        let hint = actionWords.contains(word.text) ? " (a handler action follows \"then\")" : ""
        throw error(at: word.column, "unexpected \"\(word.text)\" after the operation\(hint)")
    }

    private mutating func expect(_ text: String, _ what: String) throws(OperationSyntaxError) {
        guard let word = next() else { throw error(at: endColumn, "\(what): \"\(text)\" is missing") }
        guard word.text == text else { throw error(at: word.column, "\(what): expected \"\(text)\", found \"\(word.text)\"") }
    }

    /// A slot written with `prefix` (`c3`, `o1`).
    private mutating func slot(_ prefix: Character) throws(OperationSyntaxError) -> Int {
        let what = prefix == "c" ? "a controller slot (c0, c1, ...)" : "an object slot (o0, o1, ...)"
        guard let word = next() else { throw error(at: endColumn, "expected \(what), found the end of the line") }
        guard let slot = Self.slot(word.text, prefix) else {
            throw error(at: word.column, "expected \(what), found \"\(word.text)\"")
        }
        return slot
    }

    /// `c3` → 3 for prefix `c`: the prefix and decimal digits only.
    static func slot(_ text: String, _ prefix: Character) -> Int? {
        guard text.first == prefix, text.count > 1 else { return nil }
        let digits = text.dropFirst()
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }

    private enum AnyKey {
        case named(StressKey)
        case typed(StressTypedKey)
    }

    private static var keyList: String { StressKey.allCases.map(\.listedName).joined(separator: ", ") }
    private static var typedList: String { StressTypedKey.allCases.map(\.text).joined(separator: ", ") }

    /// A key by name, or a Swift key path (`\.k0`).
    private mutating func anyKey() throws(OperationSyntaxError) -> AnyKey {
        guard let word = peek() else {
            throw error(at: endColumn, "a key is missing at the end of the line (expected one of: \(Self.keyList), or a Swift key path)")
        }
        guard word.text.hasPrefix("\\") else { return .named(try key(named: false)) }
        _ = next()
        guard let typed = StressTypedKey(text: word.text) else {
            throw error(at: word.column, "unknown Swift key path \"\(word.text)\""
                + Self.suggestion(word.text, StressTypedKey.allCases.map(\.text)) + " (expected one of: \(Self.typedList))")
        }
        return .typed(typed)
    }

    /// A key by name (`k0`, `link.k0`); `named` says only names are expected here (no Swift key path).
    private mutating func key(named: Bool) throws(OperationSyntaxError) -> StressKey {
        let expected = "expected one of: \(Self.keyList)" + (named ? "" : "; or a Swift key path: \(Self.typedList)")
        guard let word = next() else {
            throw error(at: endColumn, "a key is missing at the end of the line (\(expected))")
        }
        guard let key = StressKey(name: word.text) else {
            throw error(at: word.column, "unknown key \"\(word.text)\""
                + Self.suggestion(word.text, StressKey.allCases.map(\.name)) + " (\(expected))")
        }
        return key
    }

    /// A key by name that must be one of `allowed` (`role`: "mutate sets").
    private mutating func key(in allowed: [StressKey], role: String) throws(OperationSyntaxError) -> StressKey {
        guard let column = peek()?.column else {
            throw error(at: endColumn, "\(role) \(allowed.map(\.listedName).joined(separator: ", ")): the key is missing at the end of the line")
        }
        let key = try key(named: true)
        guard allowed.contains(key) else {
            var message = "\(role) \(allowed.map(\.listedName).joined(separator: ", ")), not \(key.listedName)"
            switch key {
            case .level: message += " (announce oN level changes level)"
            case .items: message += " (insert, remove and replace change items)"
            case .link: message += " (link oN oM sets link)"
            case .sum, .linked: message += " (\(key.name) is computed from other keys)"
            default: break
            }
            throw error(at: column, message)
        }
        return key
    }

    /// The observing options in brackets: `[initial,new]`, `[]`.
    private mutating func options() throws(OperationSyntaxError) -> StressOptions {
        let expected = "expected the observing options in brackets, like [new], [initial,new] or []"
        guard let word = next() else { throw error(at: endColumn, "\(expected); found the end of the line") }
        guard word.text.hasPrefix("[") else { throw error(at: word.column, "\(expected); found \"\(word.text)\"") }
        guard word.text.hasSuffix("]"), word.text.count >= 2 else {
            throw error(at: word.column, "the options list \"\(word.text)\" is not closed with \"]\"")
        }
        var options: StressOptions = []
        var column = word.column + 1
        for part in word.text.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false) {
            defer { column += part.count + 1 }
            let name = part.trimmingSpaces
            guard !name.isEmpty else { continue }
            guard let option = StressOptions.named(name) else {
                let offset = part.prefix(while: { $0 == " " }).count
                let names = StressOptions.optionNames
                throw error(at: column + offset, "unknown option \"\(name)\"" + Self.suggestion(name, names)
                    + " (expected one of: \(names.joined(separator: ", ")))")
            }
            options.insert(option)
        }
        return options
    }

    /// A context number after `context`.
    private mutating func contextNumber() throws(OperationSyntaxError) -> Int {
        let what = "context needs a number (contexts are numbered 1 to \(OperationWords.contexts))"
        guard let word = next() else { throw error(at: endColumn, "\(what); found the end of the line") }
        guard word.text.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(word.text) else {
            throw error(at: word.column, "\(what); found \"\(word.text)\"")
        }
        return number
    }

    // MARK: Suggestions

    /// ` (did you mean "observe"?)` when one of `candidates` is within two edits of `text`; empty otherwise.
    static func suggestion(_ text: String, _ candidates: [String]) -> String {
        let scored = candidates.map { ($0, editDistance(text, $0)) }.filter { $0.1 <= 2 && $0.1 < max(2, text.count) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return "" }
        return " (did you mean \"\(best.0)\"?)"
    }

    /// The Levenshtein distance between `a` and `b`.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
