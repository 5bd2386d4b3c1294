import GuardCoreAtomics

#if canImport(Darwin)
import Darwin
#endif

/// How a stored field holds its value: `strong` (or not a reference at all), `weak`, `unowned` or `unowned(unsafe)`.
///
/// The reflection entry points ``StoredFieldReflection`` calls only say whether a field is strong. Which kind of
/// reference a non-strong field is comes from the class's field descriptors (the reflection metadata the compiler
/// emits for every class, part of the Swift ABI): each field's mangled type name ends in `Xw` for `weak`, `Xo` for
/// `unowned` and `Xu` for `unowned(unsafe)`. The descriptor of each class is had from the runtime's
/// `swift_getTypeContextDescriptor`: linked directly on Linux, looked up at run time on Apple platforms (like the
/// reflection entry points). Where it or a descriptor is missing, every non-strong field's ownership is unknown (and
/// key-value coding refuses it, as it refuses what it cannot read safely).
enum FieldOwnership: Sendable, Equatable {
    case strong
    case weak
    case unowned
    case unownedUnsafe

    #if canImport(Darwin)
    private typealias DescriptorFunction = @convention(c) (UnsafeRawPointer) -> UnsafeRawPointer?

    private struct EntryPoint: @unchecked Sendable {
        let descriptor: DescriptorFunction
    }

    private static let entryPoint: EntryPoint? = {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "swift_getTypeContextDescriptor") else {
            return nil
        }
        return EntryPoint(descriptor: unsafeBitCast(symbol, to: DescriptorFunction.self))
    }()

    /// The type context descriptor of the type whose metadata is at `metadata`, if the runtime can say.
    private static func typeContextDescriptor(_ metadata: UnsafeRawPointer) -> UnsafeRawPointer? {
        entryPoint?.descriptor(metadata)
    }
    #else
    /// The type context descriptor of the type whose metadata is at `metadata`, if the runtime can say.
    private static func typeContextDescriptor(_ metadata: UnsafeRawPointer) -> UnsafeRawPointer? {
        gca_type_context_descriptor(metadata)
    }
    #endif

    /// The ownership of every non-strong stored field that `type` and its superclasses declare, by name (a class
    /// cannot declare a stored property its superclass has). Fields the descriptors do not describe are missing.
    static func nonStrongFields(of type: AnyClass) -> [String: FieldOwnership] {
        var result: [String: FieldOwnership] = [:]
        var current: AnyClass? = type
        while let someClass = current {
            let metadata = unsafeBitCast(someClass as Any.Type, to: UnsafeRawPointer.self)
            if let descriptor = typeContextDescriptor(metadata) {
                // A type context descriptor: flags, parent, name, access function, then the field descriptor.
                readFields(relativeTarget(at: descriptor + 16), into: &result)
            }
            current = _getSuperclass(someClass)
        }
        return result
    }

    /// Adds the non-strong fields of the field descriptor at `fields` (if any) to `result`.
    private static func readFields(_ fields: UnsafeRawPointer?, into result: inout [String: FieldOwnership]) {
        // A field descriptor: mangled type name, superclass (4 bytes each), kind and record size (2 each), count.
        guard let fields else { return }
        let recordSize = Int(fields.load(fromByteOffset: 10, as: UInt16.self))
        let count = Int(fields.load(fromByteOffset: 12, as: UInt32.self))
        guard recordSize >= 12 else { return }
        for index in 0..<count {
            // A field record: flags, mangled type name, field name (4 bytes each).
            let record = fields + 16 + index * recordSize
            guard let typeName = relativeTarget(at: record + 4), let name = relativeTarget(at: record + 8) else {
                continue
            }
            let ownership = ownership(ofMangledTypeName: typeName)
            if ownership != .strong {
                result[String(cString: name.assumingMemoryBound(to: CChar.self))] = ownership
            }
        }
    }

    /// The ownership a mangled type name ends with. Symbolic references (a byte 0x01–0x17 followed by a 4-byte
    /// offset, 0x18–0x1F followed by a pointer) are stepped over, so their bytes are never mistaken for the suffix.
    static func ownership(ofMangledTypeName name: UnsafeRawPointer) -> FieldOwnership {
        var cursor = name
        var last: UInt8 = 0
        var beforeLast: UInt8 = 0
        while true {
            let byte = cursor.load(as: UInt8.self)
            if byte == 0 { break }
            switch byte {
            case 0x01...0x17:
                (beforeLast, last) = (0, 0)
                cursor += 5
            case 0x18...0x1F:
                (beforeLast, last) = (0, 0)
                cursor += 1 + MemoryLayout<UnsafeRawPointer>.size
            default:
                (beforeLast, last) = (last, byte)
                cursor += 1
            }
        }
        guard beforeLast == UInt8(ascii: "X") else { return .strong }
        switch last {
        case UInt8(ascii: "w"): return .weak
        case UInt8(ascii: "o"): return .unowned
        case UInt8(ascii: "u"): return .unownedUnsafe
        default: return .strong
        }
    }

    /// What the 32-bit relative offset at `address` points to; `nil` for offset 0.
    private static func relativeTarget(at address: UnsafeRawPointer) -> UnsafeRawPointer? {
        let offset = address.load(as: Int32.self)
        return offset == 0 ? nil : address + Int(offset)
    }
}
