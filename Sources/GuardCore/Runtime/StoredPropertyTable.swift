@_spi(Reflection) import Swift

/// The stored properties of a ``KVOObject`` subclass by key, read from the type's reflection metadata.
///
/// Built once per class without touching any instance, so building it never races with a setter. Reading a
/// property reads that property's storage and nothing else.
final class StoredPropertyTable: Sendable {
    /// One readable stored property.
    struct Property: Sendable {
        let offset: Int
        let reader: @Sendable (UnsafeRawPointer) -> Any?

        /// The property's current value on `object`, `nil` if it is an `Optional.none`.
        func read(from object: KVOObject) -> Any? {
            reader(UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset)
        }
    }

    private let properties: [String: Property]

    private init(properties: [String: Property]) {
        self.properties = properties
    }

    /// The property named `key` (for an ``Observed`` property, its name without the underscore).
    func property(named key: String) -> Property? {
        properties[key]
    }

    /// Every readable key.
    var keys: Set<String> {
        Set(properties.keys)
    }

    private static let cache = ReadMostlyCache<ObjectIdentifier, StoredPropertyTable>()

    /// The table of `type`, built on first use; later lookups take no process-wide lock.
    static func `for`(_ type: KVOObject.Type) -> StoredPropertyTable {
        cache.value(for: ObjectIdentifier(type)) { build(for: type) }
    }

    /// Offsets of the stored properties `KVOObject` itself declares; they are runtime state, not keys.
    private static let baseOffsets: Set<Int> = {
        var offsets = Set<Int>()
        _ = _forEachField(of: KVOObject.self, options: classType) { _, offset, _, _ in
            offsets.insert(offset)
            return true
        }
        return offsets
    }()

    /// `_EachFieldOptions.classType`, spelled by value because the stdlib declares it as a mutable static.
    private static var classType: _EachFieldOptions { _EachFieldOptions(rawValue: 1 << 0) }

    private static func build(for type: KVOObject.Type) -> StoredPropertyTable {
        var properties: [String: Property] = [:]
        _ = _forEachField(of: type, options: classType) { rawName, offset, fieldType, _ in
            guard !baseOffsets.contains(offset) else { return true }
            let name = String(cString: rawName)
            if let observed = fieldType as? any ObservedStorage.Type, name.hasPrefix("_"), name.count > 1 {
                properties[String(name.dropFirst())] = Property(offset: offset, reader: observedReader(for: observed))
            } else if !name.hasPrefix("$"), !name.contains("$") {
                properties[name] = Property(offset: offset, reader: reader(for: fieldType))
            }
            return true
        }
        return StoredPropertyTable(properties: properties)
    }

    private static func observedReader<Storage: ObservedStorage>(
        for type: Storage.Type
    ) -> @Sendable (UnsafeRawPointer) -> Any? {
        { address in Storage.readValue(at: address) }
    }

    private static func reader<Field>(for type: Field.Type) -> @Sendable (UnsafeRawPointer) -> Any? {
        { address in flattenOptional(address.assumingMemoryBound(to: Field.self).pointee) }
    }
}
