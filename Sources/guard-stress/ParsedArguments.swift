import Foundation

/// A subcommand's arguments split into `--name value` options, `--flag`s and positional words, checked against
/// what the subcommand accepts.
struct ParsedArguments {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// Parses `words`; `options` take a value, `flags` do not. Anything else starting with `-` is an error, and so
    /// is an option's value that starts with `--` (a forgotten value, not a file named like an option; write
    /// `--json=--odd` for that), and so is an option given twice. After `--` every word is positional.
    init(_ words: [String], options: Set<String>, flags allowedFlags: Set<String>) throws {
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            if !optionsEnded, word == "--" {
                optionsEnded = true
                continue
            }
            guard !optionsEnded, word.hasPrefix("-"), word != "-" else {
                positionals.append(word)
                continue
            }
            var name = word
            var inlineValue: String?
            if let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            if options.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < words.count else { throw UsageError("\(name) needs a value") }
                    guard !words[index].hasPrefix("--") else {
                        throw UsageError("\(name) needs a value, not the option '\(words[index])'")
                    }
                    value = words[index]
                    index += 1
                }
                // One value per option: which of two a run used (or which report it wrote) must never be a guess.
                if let earlier = values[name] {
                    throw UsageError("\(name) is given twice ('\(earlier)' and '\(value)'); give it once")
                }
                values[name] = value
            } else if allowedFlags.contains(name), inlineValue == nil {
                flags.insert(name)
            } else {
                throw UsageError("unknown option '\(word)'")
            }
        }
    }

    func has(_ flag: String) -> Bool {
        flags.contains(flag)
    }

    func string(_ name: String) -> String? {
        values[name]
    }

    /// The integer value of `name` within `range`, or `nil` if absent.
    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")), range.contains(value) else {
            throw UsageError("\(name) needs a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    /// The longest time a seconds option accepts: 7 days.
    static let maximumSeconds = 86_400.0 * 7

    /// The number of seconds in `name`, or `nil` if absent: greater than 0 (at least `minimum`, if given) and at most
    /// 7 days.
    func seconds(_ name: String, minimum: Double? = nil) throws -> Double? {
        guard let text = values[name] else { return nil }
        var number = text
        if number.hasSuffix("s") { number.removeLast() }
        let lowest = minimum.map { "at least \(String(format: "%g", $0))" } ?? "greater than 0"
        guard let value = Double(number), value > 0, value >= minimum ?? 0, value <= Self.maximumSeconds else {
            throw UsageError(
                "\(name) needs a number of seconds \(lowest) and at most \(String(format: "%g", Self.maximumSeconds)) (7 days), "
                    + "like 30 or 2.5, not '\(text)'")
        }
        return value
    }

    /// A 64-bit seed: decimal or `0x` hexadecimal.
    func seed(_ name: String) throws -> UInt64? {
        guard let text = values[name] else { return nil }
        let value = text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        guard let value else { throw UsageError("\(name) needs a whole number from 0 to \(UInt64.max), not '\(text)'") }
        return value
    }
}
