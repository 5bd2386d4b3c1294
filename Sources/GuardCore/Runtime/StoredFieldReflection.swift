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
/// strong; this type calls them directly.
///
/// Where the platform always has them (Linux and every other non-Apple platform) they are linked by name, so they
/// work however the runtime is linked, statically (`--static-swift-stdlib`, the static Linux SDK) included. On Apple
/// platforms they are looked up with `dlsym`, because they exist only since the Swift 5.2 runtime (iOS 13.4,
/// macOS 10.15.4, tvOS 13.4, watchOS 6.2): on an older system an app that linked them would not launch. There,
/// reflection is unavailable, and that is never silent: see ``ReflectionUnavailableNotice``.
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

    /// The three runtime entry points reflection needs.
    struct EntryPoints: @unchecked Sendable {
        let count: (Any.Type) -> Int
        let childMetadata: (Any.Type, Int, UnsafeMutablePointer<_FieldReflectionMetadata>) -> Any.Type
        let childOffset: (Any.Type, Int) -> Int
    }

    /// The runtime's names of the entry points, in the order ``lookUp(with:)`` asks for them.
    static let entryPointNames = [
        "swift_reflectionMirror_recursiveCount", "swift_reflectionMirror_recursiveChildMetadata",
        "swift_reflectionMirror_recursiveChildOffset",
    ]

    /// The entry points this process has: linked where the platform always has them, looked up on Apple platforms.
    static let entryPoints: EntryPoints? = {
        #if canImport(Darwin)
        return lookUp(with: dynamicSymbol(named:))
        #else
        return linked
        #endif
    }()

    /// The entry points found by `symbol`, which returns a function's address by name; `nil` if any is missing.
    ///
    /// The functions use the Swift calling convention, whose arguments and results of these types are passed as the
    /// C convention passes them on every supported architecture.
    static func lookUp(with symbol: (String) -> UnsafeMutableRawPointer?) -> EntryPoints? {
        typealias CCount = @convention(c) (UnsafeRawPointer) -> Int
        typealias CChildMetadata =
            @convention(c) (UnsafeRawPointer, Int, UnsafeMutablePointer<_FieldReflectionMetadata>) -> UnsafeRawPointer
        typealias CChildOffset = @convention(c) (UnsafeRawPointer, Int) -> Int
        let addresses = entryPointNames.map(symbol)
        guard let count = addresses[0], let childMetadata = addresses[1], let childOffset = addresses[2] else {
            return nil
        }
        let countFunction = unsafeBitCast(count, to: CCount.self)
        let childMetadataFunction = unsafeBitCast(childMetadata, to: CChildMetadata.self)
        let childOffsetFunction = unsafeBitCast(childOffset, to: CChildOffset.self)
        return EntryPoints(
            count: { countFunction(metadataPointer(of: $0)) },
            childMetadata: { type, index, field in
                unsafeBitCast(childMetadataFunction(metadataPointer(of: type), index, field), to: Any.Type.self)
            },
            childOffset: { childOffsetFunction(metadataPointer(of: $0), $1) })
    }

    /// The address of `name` among the symbols the process exports; `nil` where it has none (a runtime linked
    /// statically exports nothing).
    static func dynamicSymbol(named name: String) -> UnsafeMutableRawPointer? {
        guard let handle = dlopen(nil, RTLD_NOW) else { return nil }
        return dlsym(handle, name)
    }

    private static func metadataPointer(of type: Any.Type) -> UnsafeRawPointer {
        unsafeBitCast(type, to: UnsafeRawPointer.self)
    }

    #if !canImport(Darwin)
    /// The entry points linked by name: every non-Apple Swift runtime has them.
    static let linked = EntryPoints(
        count: { reflectionMirrorRecursiveCount($0) },
        childMetadata: { reflectionMirrorRecursiveChildMetadata($0, $1, $2) },
        childOffset: { reflectionMirrorRecursiveChildOffset($0, $1) })
    #endif

    /// Every stored field of `type` and its superclasses; empty, after ``ReflectionUnavailableNotice`` has said so
    /// once, where the runtime offers no reflection.
    static func fields(of type: AnyClass) -> [Field] {
        guard let entryPoints = ReflectionUnavailableNotice.entryPointsInForce else {
            ReflectionUnavailableNotice.announce()
            return []
        }
        return fields(of: type, using: entryPoints)
    }

    /// Every stored field of `type` and its superclasses, read through `entryPoints`.
    static func fields(of type: AnyClass, using entryPoints: EntryPoints) -> [Field] {
        let type = type as Any.Type
        return (0..<entryPoints.count(type)).compactMap { index in
            var field = _FieldReflectionMetadata()
            let fieldType = entryPoints.childMetadata(type, index, &field)
            defer { field.freeFunc?(field.name) }
            guard let name = field.name else { return nil }
            return Field(
                name: String(cString: name), offset: entryPoints.childOffset(type, index), type: fieldType,
                isStrong: field.isStrong, isVar: field.isVar)
        }
    }
}

#if !canImport(Darwin)
// The runtime's own declarations (the standard library's ReflectionMirror.swift declares them the same way).
@_silgen_name("swift_reflectionMirror_recursiveCount")
private func reflectionMirrorRecursiveCount(_ type: Any.Type) -> Int

@_silgen_name("swift_reflectionMirror_recursiveChildMetadata")
private func reflectionMirrorRecursiveChildMetadata(
    _ type: Any.Type, _ index: Int, _ field: UnsafeMutablePointer<_FieldReflectionMetadata>
) -> Any.Type

@_silgen_name("swift_reflectionMirror_recursiveChildOffset")
private func reflectionMirrorRecursiveChildOffset(_ type: Any.Type, _ index: Int) -> Int
#endif
