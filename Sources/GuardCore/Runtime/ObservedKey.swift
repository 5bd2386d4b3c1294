/// The key of an ``Observed`` property and its ``KeyBit``, cached in the property after the first observed set.
@usableFromInline
struct ObservedKey: Sendable {
    let name: String
    @usableFromInline let bit: UInt64
    /// Whether the property's type is an `Optional`, whose `nil` must be flattened like key-value coding does.
    let valueIsOptional: Bool

    private static let cache = ReadMostlyCache<AnyKeyPath, ObservedKey>()

    /// The key of the property whose storage is at `storage` (`\Person._age` gives `age`).
    static func resolve(storage: AnyKeyPath, valueIsOptional: Bool) -> ObservedKey {
        cache.value(for: storage) {
            guard let name = storageName(of: storage) else {
                fatalError(
                    "KVOGuard: cannot learn the name of the @Observed property behind \(storage); GuardCore needs the "
                        + "type's reflection metadata (do not build with -disable-reflection-metadata).")
            }
            return ObservedKey(name: name, bit: KeyBit.of(name), valueIsOptional: valueIsOptional)
        }
    }

    /// `age` for a key path printed as `\Module.Person._age`; `nil` if the rendering has no property name.
    static func storageName(of storage: AnyKeyPath) -> String? {
        let text = String(describing: storage)
        guard let lastDot = text.lastIndex(of: ".") else { return nil }
        let component = text[text.index(after: lastDot)...]
        guard component.hasPrefix("_"), component.count > 1,
            component.dropFirst().allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
        else { return nil }
        return String(component.dropFirst())
    }
}
