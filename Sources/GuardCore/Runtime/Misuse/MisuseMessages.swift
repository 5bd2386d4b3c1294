/// Builds ``KVOMisuse`` values with Foundation's exception names and wording.
enum MisuseMessages {
    static func notRegistered(observer: AnyObject, object: AnyObject, keyPath: String) -> KVOMisuse {
        let observerText = ObjectDescription.of(observer)
        let objectText = ObjectDescription.of(object)
        return KVOMisuse(
            kind: .notRegistered, exceptionName: "NSRangeException",
            message: "Cannot remove an observer \(observerText) for the key path \"\(keyPath)\" from \(objectText) "
                + "because it is not registered as an observer.",
            keyPath: keyPath, object: objectText, observer: observerText, thread: CurrentThread.description)
    }

    static func unpairedDidChange(object: AnyObject, key: String) -> KVOMisuse {
        let objectText = ObjectDescription.of(object)
        return KVOMisuse(
            kind: .unpairedDidChange, exceptionName: "NSInternalInconsistencyException",
            message: "Cannot update for the key path \"\(key)\" of \(objectText): didChangeValue(forKey:) was called "
                + "without a matching willChangeValue(forKey:) on this thread, most likely because the value for the "
                + "key \"\(key)\" has changed without an appropriate KVO notification being sent.",
            keyPath: key, object: objectText, observer: nil, thread: CurrentThread.description)
    }

    static func observerDeallocated(
        observerType: Any.Type, observerAddress: UInt, object: AnyObject, keyPath: String
    ) -> KVOMisuse {
        let observerText = ObjectDescription.describe(type: observerType, address: observerAddress)
        let objectText = ObjectDescription.of(object)
        return KVOMisuse(
            kind: .observerDeallocated, exceptionName: "EXC_BAD_ACCESS",
            message: "*** -[\(ObjectDescription.typeName(observerType)) observeValueForKeyPath:ofObject:change:context:]: "
                + "message sent to deallocated instance \(ObjectDescription.hex(observerAddress)) "
                + "(key path \"\(keyPath)\" of \(objectText))",
            keyPath: keyPath, object: objectText, observer: observerText, thread: CurrentThread.description)
    }

    static func deallocatedWhileObserved(
        objectType: Any.Type, objectAddress: UInt, observances: [Observance]
    ) -> KVOMisuse {
        let objectText = ObjectDescription.describe(type: objectType, address: objectAddress)
        let lines = observances.map(\.infoLine).joined(separator: "\n")
        return KVOMisuse(
            kind: .deallocatedWhileObserved, exceptionName: "NSInternalInconsistencyException",
            message: "An instance \(ObjectDescription.hex(objectAddress)) of class \(ObjectDescription.typeName(objectType)) "
                + "was deallocated while key value observers were still registered with it. Current observation info: "
                + "(\n\(lines)\n)",
            keyPath: observances.map(\.keyPath).joined(separator: ", "), object: objectText,
            observer: observances.first.map(\.observerText), thread: CurrentThread.description)
    }

    /// An ordered to-many edit of `key` whose indexes do not fit the array (Foundation's `NSMutableArray` wording).
    static func invalidIndexes<Element>(
        object: AnyObject, key: String, edit: ToManyEdit<Element>, mismatch: ToManyEdit<Element>.Mismatch
    ) -> KVOMisuse {
        let objectText = ObjectDescription.of(object)
        let method = "*** -[NSMutableArray \(edit.foundationSelector)]"
        let exceptionName: String
        let problem: String
        switch mismatch {
        case .countDiffers(let elements, let indexes):
            exceptionName = "NSInvalidArgumentException"
            problem = "count of array (\(elements)) differs from count of index set (\(indexes))"
        case .outOfBounds(let index, let validRange):
            exceptionName = "NSRangeException"
            problem =
                validRange.isEmpty
                ? "index \(index) in index set beyond bounds for empty array"
                : "index \(index) in index set beyond bounds [0 .. \(validRange.upperBound - 1)]"
        }
        return KVOMisuse(
            kind: .invalidIndexes, exceptionName: exceptionName,
            message: "\(method): \(problem) (key \"\(key)\" of \(objectText))",
            keyPath: key, object: objectText, observer: nil, thread: CurrentThread.description)
    }

    /// A key path that cannot be followed within ``KeyPathSyntax/maximumGuardedComponents`` nested steps: `keyPath`
    /// itself, or `overlong`, a key path it depends on (or the rest of a chain it reaches).
    static func keyPathTooLong(object: AnyObject, keyPath: String, overlong: String) -> KVOMisuse {
        let objectText = ObjectDescription.of(object)
        let limit = KeyPathSyntax.maximumGuardedComponents
        let what =
            overlong == keyPath
            ? "it has more than \(limit) components"
            : "it depends on the key path \"\(abbreviated(overlong))\", which goes deeper than \(limit) components"
        return KVOMisuse(
            kind: .keyPathTooLong, exceptionName: "NSInvalidArgumentException",
            message: "Cannot observe the key path \"\(abbreviated(keyPath))\" of \(objectText): \(what), and following "
                + "it could overflow the thread's stack.",
            keyPath: keyPath, object: objectText, observer: nil, thread: CurrentThread.description)
    }

    /// The first keys of a long key path, then `…` and how many components it has.
    static func abbreviated(_ keyPath: String) -> String {
        let shown = 8
        guard KeyPathSyntax.hasMoreComponents(than: shown, keyPath) else { return keyPath }
        let components = keyPath.utf8.split(separator: 0x2E, omittingEmptySubsequences: false)
        let head = components.prefix(shown).map { String(decoding: $0, as: UTF8.self) }.joined(separator: ".")
        return "\(head).… (\(components.count) components)"
    }
}
