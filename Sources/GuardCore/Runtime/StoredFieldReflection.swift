import SwiftShims

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The stored fields of a class, superclasses included, as the Swift runtime's reflection metadata describes them:
/// name, offset, type, and whether the field holds a strong reference.
///
/// The standard library's `_forEachField` reports a `weak var delegate: T?` as a plain `Optional<T>`, and reading
/// that storage as a strong reference crashes. The runtime entry points it is built on also say whether a field is
/// strong; this type calls them directly. They are looked up with `dlsym` rather than linked by name, because they
/// exist only since the Swift 5.2 runtime (iOS 13.4, macOS 10.15.4): on an older system an app that linked them
/// would not launch, while here reflection is simply unavailable (no stored property is a key-value coding key).
enum StoredFieldReflection {
    /// One stored field.
    struct Field {
        let name: String
        let offset: Int
        let type: Any.Type
        /// `false` for `weak`, `unowned` and `unowned(unsafe)` fields, whose storage is not a strong reference.
        let isStrong: Bool
        /// `false` for a `let`.
        let isVar: Bool
    }

    private typealias CountFunction = @convention(c) (UnsafeRawPointer) -> Int
    private typealias ChildMetadataFunction =
        @convention(c) (UnsafeRawPointer, Int, UnsafeMutablePointer<_FieldReflectionMetadata>) -> UnsafeRawPointer
    private typealias ChildOffsetFunction = @convention(c) (UnsafeRawPointer, Int) -> Int

    private struct EntryPoints: @unchecked Sendable {
        let count: CountFunction
        let childMetadata: ChildMetadataFunction
        let childOffset: ChildOffsetFunction
    }

    private static let entryPoints: EntryPoints? = {
        guard let handle = dlopen(nil, RTLD_NOW),
            let count = dlsym(handle, "swift_reflectionMirror_recursiveCount"),
            let childMetadata = dlsym(handle, "swift_reflectionMirror_recursiveChildMetadata"),
            let childOffset = dlsym(handle, "swift_reflectionMirror_recursiveChildOffset")
        else { return nil }
        return EntryPoints(
            count: unsafeBitCast(count, to: CountFunction.self),
            childMetadata: unsafeBitCast(childMetadata, to: ChildMetadataFunction.self),
            childOffset: unsafeBitCast(childOffset, to: ChildOffsetFunction.self))
    }()

    /// Every stored field of `type` and its superclasses; empty where the runtime offers no reflection.
    static func fields(of type: AnyClass) -> [Field] {
        guard let entryPoints else { return [] }
        let metadata = unsafeBitCast(type as Any.Type, to: UnsafeRawPointer.self)
        return (0..<entryPoints.count(metadata)).compactMap { index in
            var field = _FieldReflectionMetadata()
            let fieldType = unsafeBitCast(entryPoints.childMetadata(metadata, index, &field), to: Any.Type.self)
            defer { field.freeFunc?(field.name) }
            guard let name = field.name else { return nil }
            return Field(
                name: String(cString: name), offset: entryPoints.childOffset(metadata, index), type: fieldType,
                isStrong: field.isStrong, isVar: field.isVar)
        }
    }
}
