/// The key of an ``Observed`` property and its ``KeyBit``, cached in the property after the first observed set.
@usableFromInline
struct ObservedKey: Sendable {
    let name: String
    @usableFromInline let bit: UInt64
    /// Whether the property's type is an `Optional`, whose `nil` must be flattened like key-value coding does.
    let valueIsOptional: Bool

    private static let cache = ReadMostlyCache<AnyKeyPath, ObservedKey>()

    /// The key of the property whose storage is at `storage` (`\Person._age` gives `age`). If no name can be had
    /// (a build without reflection metadata), the property gets no key bit: it is never announced, and nobody can
    /// register for it by name either.
    static func resolve(storage: AnyKeyPath, valueIsOptional: Bool) -> ObservedKey {
        cache.value(for: storage) {
            guard let name = storageName(of: storage) else {
                return ObservedKey(name: "", bit: 0, valueIsOptional: valueIsOptional)
            }
            return ObservedKey(name: name, bit: KeyBit.of(name), valueIsOptional: valueIsOptional)
        }
    }

    /// `age` for a storage key path printed as `\Person._age` (any identifier, `größe` and `😀` included); `nil` if
    /// the rendering has no property name.
    static func storageName(of storage: AnyKeyPath) -> String? {
        guard let components = KeyPathRendering.components(of: storage, root: type(of: storage).rootType),
            case .stored(let name) = components.last, name.hasPrefix("_"), name.count > 1
        else { return nil }
        return String(name.dropFirst())
    }
}
