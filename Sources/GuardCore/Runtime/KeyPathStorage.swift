/// Reads the components of a Swift key path from the key path object's own storage, without evaluating anything.
///
/// A key path object holds its components in a buffer laid out by the standard library (the constants are those of
/// SwiftShims' `KeyPath.h`): after the object header and the cached KVC string pointer comes a 32-bit buffer header
/// whose low 24 bits are the size of the components, then, pointer-aligned, each component as a 32-bit header (kind
/// in bits 24-30, payload below) and a body whose size the header determines, each but the last followed by the
/// pointer-aligned metadata of the type it leads to. A computed component's body is the property's identity, its
/// getter, its setter if settable and, for a subscript, the size, witnesses and values of its arguments.
///
/// That is what tells a subscript (`\.[5]`, `\.items[0]`) or a read-only computed property apart from a property:
/// their printed forms (``KeyPathRendering``) look the same. Every read stays inside the size the buffer header
/// declares; anything that does not fit the layout (an unknown kind, a body past the end) makes the reading `nil`, and
/// callers then treat the key path as one they cannot name.
enum KeyPathStorage {
    /// One component, as stored.
    struct Component: Equatable {
        enum Kind: Equatable {
            /// A stored property of a struct or class, reached by offset.
            case stored
            /// A computed property or subscript, reached through accessors.
            case computed
            /// An optional chain, force unwrap or wrap.
            case optional
        }

        let kind: Kind
        /// A computed component with a setter.
        let isSettable: Bool
        /// A computed component with arguments: a subscript.
        let hasArguments: Bool
        /// A computed component's identity (what key path equality compares), the same for one property from any root.
        let identity: UInt?
        /// A computed component's getter, as a bit pattern (see ``KeyPathComponentGetter``).
        var getter: UInt? = nil
        /// The metadata of the type the component leads to, as a bit pattern; `nil` for the last component, which
        /// leads to the key path's value type. See ``leadsTo``.
        var leadsToBits: UInt? = nil

        /// The type the component leads to (for an optional chain or force unwrap, the wrapped type); `nil` for the
        /// last component.
        var leadsTo: Any.Type? {
            leadsToBits.flatMap { UnsafeRawPointer(bitPattern: $0) }.map { unsafeBitCast($0, to: Any.Type.self) }
        }
    }

    private static let word = MemoryLayout<UInt>.size
    /// Bytes between a 32-bit component header and the pointer-aligned fields after it.
    private static let pointerAlignmentSkew = MemoryLayout<UInt>.size - MemoryLayout<UInt32>.size

    private static let bufferSizeMask: UInt32 = 0x00FF_FFFF
    private static let discriminatorMask: UInt32 = 0x7F00_0000
    private static let discriminatorShift: UInt32 = 24
    private static let structTag: UInt32 = 1
    private static let computedTag: UInt32 = 2
    private static let classTag: UInt32 = 3
    private static let optionalTag: UInt32 = 4
    private static let storedOffsetPayloadMask: UInt32 = 0x007F_FFFF
    private static let outOfLineOffsetPayload: UInt32 = 0x007F_FFFF
    private static let computedSettableFlag: UInt32 = 0x0040_0000
    private static let computedHasArgumentsFlag: UInt32 = 0x0008_0000
    private static let computedInstantiatedFromExternalWithArgumentsFlag: UInt32 = 0x0000_0010

    /// The components of `keyPath` in order, or `nil` if its storage does not read as the layout above.
    static func components(of keyPath: AnyKeyPath) -> [Component]? {
        withExtendedLifetime(keyPath) { () -> [Component]? in
            let object = UnsafeRawPointer(Unmanaged.passUnretained(keyPath).toOpaque())
            // Object header (two words), the KVC string pointer, then the buffer header in a word of its own.
            let bufferHeader = object.load(fromByteOffset: 3 * word, as: UInt32.self)
            let start = 4 * word
            let end = start + Int(bufferHeader & bufferSizeMask)
            var reader = Reader(object: object, offset: start, end: end)
            var components: [Component] = []
            while reader.offset < end {
                guard var component = reader.nextComponent() else { return nil }
                if reader.offset == end {
                    components.append(component)
                    return components
                }
                // The metadata of the type the component leads to.
                guard let metadata = reader.nextWord(), metadata != 0 else { return nil }
                component.leadsToBits = metadata
                components.append(component)
            }
            return nil
        }
    }

    /// Walks the buffer, never reading at or past `end`.
    private struct Reader {
        let object: UnsafeRawPointer
        var offset: Int
        let end: Int

        /// Whether `count` bytes from `offset` are inside the buffer.
        private func fits(_ count: Int, at offset: Int) -> Bool {
            count >= 0 && offset >= 0 && offset <= end - count
        }

        /// Reads the pointer-aligned word at `offset` and moves past it; `nil` if that leaves the buffer.
        mutating func nextWord() -> UInt? {
            let aligned = (offset + word - 1) & ~(word - 1)
            guard let value = load(UInt.self, at: aligned) else { return nil }
            offset = aligned + word
            return value
        }

        private func load<T>(_ type: T.Type, at offset: Int) -> T? {
            guard fits(MemoryLayout<T>.size, at: offset) else { return nil }
            return object.loadUnaligned(fromByteOffset: offset, as: T.self)
        }

        mutating func nextComponent() -> Component? {
            let headerOffset = (offset + 3) & ~3
            guard let header = load(UInt32.self, at: headerOffset) else { return nil }
            let body = headerOffset + MemoryLayout<UInt32>.size
            let payload = header & ~discriminatorMask
            let component: Component
            let bodySize: Int
            switch (header & discriminatorMask) >> discriminatorShift {
            case structTag, classTag:
                component = Component(kind: .stored, isSettable: false, hasArguments: false, identity: nil)
                bodySize = payload & storedOffsetPayloadMask == outOfLineOffsetPayload ? 4 : 0
            case optionalTag:
                component = Component(kind: .optional, isSettable: false, hasArguments: false, identity: nil)
                bodySize = 0
            case computedTag:
                let fields = body + pointerAlignmentSkew
                let isSettable = payload & computedSettableFlag != 0
                let hasArguments = payload & computedHasArgumentsFlag != 0
                guard let identity = load(UInt.self, at: fields), let getter = load(UInt.self, at: fields + word)
                else { return nil }
                var size = pointerAlignmentSkew + 2 * word + (isSettable ? word : 0)
                if hasArguments {
                    guard let argumentSize = load(Int.self, at: body + size), argumentSize >= 0 else { return nil }
                    size += 2 * word + argumentSize
                    if payload & computedInstantiatedFromExternalWithArgumentsFlag != 0 { size += word }
                }
                component = Component(
                    kind: .computed, isSettable: isSettable, hasArguments: hasArguments, identity: identity,
                    getter: getter)
                bodySize = size
            default:
                // An external component is instantiated away in a key path object; anything else is not a layout
                // this reader knows.
                return nil
            }
            guard fits(bodySize, at: body) else { return nil }
            offset = body + bodySize
            return component
        }
    }
}
