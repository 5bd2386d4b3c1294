/// The Swift key paths (`\StressObject.k0`) a typed observe or unobserve can use. Naming one must never evaluate it
/// (`\.peer!.k0` traps on the always-nil `peer`): the two through `peer` are named `peer.k0`, as Foundation names
/// them, and `\.sum` has no name (the guard answers `.invalid` while the raw runtime reports `unknownKey`).
///
/// Text forms are the key paths as written in Swift: `\.k0`, `\.sum`, `\.peer!.k0`, `\.peer?.k0`.
public enum StressTypedKey: Int, CaseIterable, Sendable {
    /// `\.k0`: a chain of one `@Observed` property, named `k0`.
    case k0
    /// `\.k1`, named `k1`.
    case k1
    /// `\.k2`, named `k2`.
    case k2
    /// `\.sum`: a computed property; no name.
    case sum
    /// `\.peer!.k0`: a force unwrap through a property that is always nil, named `peer.k0`; evaluating it traps.
    case peerForced
    /// `\.peer?.k0`: an optional chain, named `peer.k0`.
    case peerOptional

    /// The key path as written in Swift.
    public var text: String {
        switch self {
        case .k0: return "\\.k0"
        case .k1: return "\\.k1"
        case .k2: return "\\.k2"
        case .sum: return "\\.sum"
        case .peerForced: return "\\.peer!.k0"
        case .peerOptional: return "\\.peer?.k0"
        }
    }

    /// The typed key whose text is `text`, if any.
    public init?(text: String) {
        guard let key = StressTypedKey.allCases.first(where: { $0.text == text }) else { return nil }
        self = key
    }

    /// The string key the key path is named by, or `nil` if it has no name.
    public var named: StressKey? {
        switch self {
        case .k0: return .k0
        case .k1: return .k1
        case .k2: return .k2
        case .peerForced, .peerOptional: return .peerK0
        case .sum: return nil
        }
    }
}
