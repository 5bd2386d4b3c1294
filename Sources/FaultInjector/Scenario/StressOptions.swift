import GuardCore

/// The observing options an operation asks for, kept as a small value type with a stable text form
/// (`[initial,new,old,prior]`).
public struct StressOptions: OptionSet, Hashable, Codable, Sendable {
    /// The option bits.
    public let rawValue: UInt8

    /// Creates options from bits.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// `.new`.
    public static let new = StressOptions(rawValue: 1 << 0)
    /// `.old`.
    public static let old = StressOptions(rawValue: 1 << 1)
    /// `.initial`.
    public static let initial = StressOptions(rawValue: 1 << 2)
    /// `.prior`.
    public static let prior = StressOptions(rawValue: 1 << 3)

    private static let names: [(StressOptions, String)] = [
        (.initial, "initial"), (.new, "new"), (.old, "old"), (.prior, "prior"),
    ]

    /// The runtime's options.
    public var observingOptions: KeyValueObservingOptions {
        var options: KeyValueObservingOptions = []
        if contains(.new) { options.insert(.new) }
        if contains(.old) { options.insert(.old) }
        if contains(.initial) { options.insert(.initial) }
        if contains(.prior) { options.insert(.prior) }
        return options
    }

    /// `[initial,new]`; `[]` when empty.
    public var text: String {
        "[" + Self.names.filter { contains($0.0) }.map(\.1).joined(separator: ",") + "]"
    }

    /// The option called `name` (`initial`, `new`, `old`, `prior`), if any.
    static func named(_ name: String) -> StressOptions? {
        names.first(where: { $0.1 == name })?.0
    }

    /// The option names, in the order ``text`` writes them.
    static var optionNames: [String] { names.map(\.1) }

    /// Parses ``text``; `nil` for anything else.
    public init?(text: String) {
        guard text.hasPrefix("["), text.hasSuffix("]") else { return nil }
        var options: StressOptions = []
        for part in text.dropFirst().dropLast().split(separator: ",") {
            guard let option = Self.names.first(where: { $0.1 == part })?.0 else { return nil }
            options.insert(option)
        }
        self = options
    }
}
