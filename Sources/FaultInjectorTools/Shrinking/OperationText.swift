import FaultInjector

/// An operation seen only through its one-line text form, so the shrinker needs no knowledge of the operation
/// kinds: a kind added to ``Operation`` shrinks without any change here, as long as its text names controller slots
/// as `c<n>`, object slots as `o<n>`, keys by their names (`k0`, `sum`), options as a bracketed list
/// (`[initial,new]`) and a handler action after `then`.
///
/// Every rewrite is a candidate text; ``Operation/init(_:)`` decides whether it is an operation at all.
struct OperationText: Hashable {
    /// A run of letters and digits (a word) or of anything else (a separator).
    private struct Piece: Hashable {
        var text: String
        let isWord: Bool
    }

    private var pieces: [Piece]

    /// The pieces of `operation`'s text form.
    init(_ operation: Operation) {
        self.init(operation.description)
    }

    /// The pieces of `text`.
    init(_ text: String) {
        var pieces: [Piece] = []
        for character in text {
            let isWord = character.isLetter || character.isNumber
            if let last = pieces.last, last.isWord == isWord {
                pieces[pieces.count - 1].text.append(character)
            } else {
                pieces.append(Piece(text: String(character), isWord: isWord))
            }
        }
        self.pieces = pieces
    }

    /// The text.
    var text: String { pieces.map(\.text).joined() }

    /// The operation the text reads as, if any.
    var operation: Operation? { Operation(text) }

    // MARK: Slots

    /// The slot numbers named with `prefix` (`c` for controllers, `o` for objects), in order of appearance.
    func slots(_ prefix: Character) -> [Int] {
        pieces.compactMap { Self.slotNumber($0, prefix) }
    }

    /// The text with every slot `prefix<n>` renamed to `prefix<renaming[n]>` (slots not in `renaming` stay).
    func renaming(_ prefix: Character, _ renaming: [Int: Int]) -> OperationText {
        var copy = self
        for index in copy.pieces.indices {
            if let number = Self.slotNumber(copy.pieces[index], prefix), let new = renaming[number] {
                copy.pieces[index].text = "\(prefix)\(new)"
            }
        }
        return copy
    }

    private static func slotNumber(_ piece: Piece, _ prefix: Character) -> Int? {
        guard piece.isWord, piece.text.first == prefix, piece.text.count > 1 else { return nil }
        let digits = piece.text.dropFirst()
        guard digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        return Int(digits)
    }

    // MARK: Keys

    /// The key names the text uses, in order of appearance.
    var keys: [String] {
        pieces.filter { $0.isWord && Self.keyNames.contains($0.text) }.map(\.text)
    }

    /// The text with key `old` renamed to `new` everywhere.
    func renamingKey(_ old: String, to new: String) -> OperationText {
        var copy = self
        for index in copy.pieces.indices where copy.pieces[index].isWord && copy.pieces[index].text == old {
            copy.pieces[index].text = new
        }
        return copy
    }

    /// Every key name there is.
    static let keyNames = Set(StressKey.allCases.map(\.name))

    // MARK: Simpler forms

    /// Texts that say less: without the handler action (`... then X`), and with one option fewer in each bracketed
    /// list (and with the list empty). Most promising first.
    var simplifications: [String] {
        var results: [String] = []
        let text = self.text
        if let then = text.range(of: " then ") { results.append(String(text[..<then.lowerBound])) }
        var searchStart = text.startIndex
        while let open = text[searchStart...].firstIndex(of: "["), let close = text[open...].firstIndex(of: "]") {
            let inner = text[text.index(after: open)..<close]
            let options = inner.split(separator: ",").map(String.init)
            let prefix = String(text[...open])
            let suffix = String(text[close...])
            if options.count > 1 { results.append(prefix + suffix) }
            for dropped in options.indices {
                var kept = options
                kept.remove(at: dropped)
                results.append(prefix + kept.joined(separator: ",") + suffix)
            }
            searchStart = text.index(after: close)
        }
        var seen: Set<String> = [text]
        return results.filter { seen.insert($0).inserted }
    }
}
