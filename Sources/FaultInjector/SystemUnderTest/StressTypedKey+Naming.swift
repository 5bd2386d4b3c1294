import GuardCore

extension StressTypedKey {
    /// The string name `object` resolves the key path to (GuardCore's key name probe), or `nil` if it has none.
    public func name(on object: StressObject) -> String? {
        switch self {
        case .k0: return object.keyPathString(for: \.k0)
        case .k1: return object.keyPathString(for: \.k1)
        case .k2: return object.keyPathString(for: \.k2)
        case .sum: return object.keyPathString(for: \.sum)
        case .peerForced: return object.keyPathString(for: \.peer!.k0)
        case .peerOptional: return object.keyPathString(for: \.peer?.k0)
        }
    }
}
