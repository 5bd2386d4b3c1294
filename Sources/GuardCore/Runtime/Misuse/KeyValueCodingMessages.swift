/// Key-value coding's misuses, with Foundation's exception names and wording. A value that is not an object is shown
/// as `<Type>` where Foundation shows `<Class: 0xADDRESS>`.
extension MisuseMessages {
    /// An unknown key of `object` (Foundation: `NSUnknownKeyException` from `valueForUndefinedKey:`).
    static func unknownKey(object: AnyObject, key: String) -> KVOMisuse {
        unknownKey(objectText: ObjectDescription.of(object), object: object, key: key, setting: false)
    }

    /// An unknown key of a value along a key path that is not a ``KVOObject``.
    static func unknownKey(in value: Any, key: String) -> KVOMisuse {
        unknownKey(objectText: describe(value), object: objectIfAny(value), key: key, setting: false)
    }

    /// A key `object` cannot set (Foundation: `NSUnknownKeyException` from `setValue:forUndefinedKey:`).
    static func unknownKeyForSetting(object: AnyObject, key: String) -> KVOMisuse {
        unknownKey(objectText: ObjectDescription.of(object), object: object, key: key, setting: true)
    }

    /// A key to set on a value along a key path that is not a ``KVOObject``.
    static func unknownKeyForSetting(in value: Any, key: String) -> KVOMisuse {
        unknownKey(objectText: describe(value), object: objectIfAny(value), key: key, setting: true)
    }

    /// `nil` for a key whose property is not optional (Foundation's `setNilValueForKey:` wording).
    static func nilValueForNonOptional(object: AnyObject, key: String) -> KVOMisuse {
        let objectText = ObjectDescription.of(object)
        return KVOMisuse(
            kind: .nilValueForNonOptional, exceptionName: "NSInvalidArgumentException",
            message: "[\(objectText) setNilValueForKey]: could not set nil as the value for the key \(key).",
            keyPath: key, object: objectText, observer: nil, thread: CurrentThread.description)
    }

    /// A value for `key` that its property's type, `expected`, cannot hold.
    static func typeMismatch(object: AnyObject, key: String, value: Any?, expected: Any.Type) -> KVOMisuse {
        let objectText = ObjectDescription.of(object)
        return KVOMisuse(
            kind: .typeMismatch, exceptionName: "NSInvalidArgumentException",
            message: "[\(objectText) setValue:forKey:]: the value \(describeValue(value)) cannot be stored in the key "
                + "\(key), of type \(ObjectDescription.typeName(expected)).",
            keyPath: key, object: objectText, observer: nil, thread: CurrentThread.description)
    }

    /// A value a collection operator of `collection` cannot work with; `needs` says what it needs ("numbers").
    static func typeMismatch(
        inOperator operatorName: String, of collection: Any, keyPath: String, value: Any, needs: String
    ) -> KVOMisuse {
        let collectionText = describe(collection)
        return KVOMisuse(
            kind: .typeMismatch, exceptionName: "NSInvalidArgumentException",
            message: "[\(collectionText) valueForKeyPath:]: the @\(operatorName) operation needs \(needs), and "
                + "\(describeValue(value)) is not one (key path \"\(keyPath)\").",
            keyPath: keyPath, object: collectionText, observer: nil, thread: CurrentThread.description)
    }

    /// A collection operator Foundation does not have, or one that needs a right key path without one.
    static func unknownCollectionOperator(
        _ operatorName: String, of collection: Any, keyPath: String, hasRightKeyPath: Bool
    ) -> KVOMisuse {
        let collectionText = describe(collection)
        let foundation =
            hasRightKeyPath
            ? "[\(collectionText) valueForKeyPath:]: this class does not implement the \(operatorName) operation."
            : "[\(collectionText) valueForUndefinedKey:]: this class is not key value coding-compliant for the key "
                + "\(operatorName)."
        let known = CollectionOperator.allCases.map { "@\($0.rawValue)" }.joined(separator: ", ")
        let note =
            CollectionOperator(rawValue: operatorName) == nil
            ? " (@\(operatorName) is not a collection operator; they are \(known).)"
            : " (@\(operatorName) needs a right key path: @\(operatorName).key.)"
        return KVOMisuse(
            kind: .unknownCollectionOperator, exceptionName: "NSUnknownKeyException", message: foundation + note,
            keyPath: keyPath, object: collectionText, observer: nil, thread: CurrentThread.description)
    }

    /// A read whose collection operators nest deeper than ``ChainDepth/limit`` on one thread: following it could
    /// overflow the thread's stack.
    static func readTooDeep(keyPath: String, in collection: Any) -> KVOMisuse {
        let collectionText = describe(collection)
        return KVOMisuse(
            kind: .keyPathTooLong, exceptionName: "NSInvalidArgumentException",
            message: "Cannot read the key path \"\(abbreviated(keyPath))\" of \(collectionText): its collection operators "
                + "nest more than \(ChainDepth.limit) deep, and following them could overflow the thread's stack.",
            keyPath: keyPath, object: collectionText, observer: nil, thread: CurrentThread.description)
    }

    /// `keyPath`, observed on `object`, goes through a collection or uses a collection operator (`step`).
    static func keyPathThroughCollection(object: AnyObject, keyPath: String, step: CollectionStep) -> KVOMisuse {
        let objectText = ObjectDescription.of(object)
        let collectionText = step.collectionType.map { "<\(ObjectDescription.typeName($0))>" } ?? "<collection>"
        let observing =
            step.keyPath == keyPath
            ? "observing \"\(abbreviated(keyPath))\" of \(objectText)"
            : "observing \"\(abbreviated(keyPath))\" of \(objectText), which depends on the key path "
                + "\"\(abbreviated(step.keyPath))\""
        return KVOMisuse(
            kind: .keyPathThroughCollection, exceptionName: "NSInvalidArgumentException",
            message: "[\(collectionText) addObserver:forKeyPath:options:context:] is not supported. Key path: "
                + "\(abbreviated(step.forwardedPath)) (\(observing): arrays and sets cannot be observed, and neither can "
                + "collection operators; observe \"\(abbreviated(step.collectionKeyPath))\" and read the rest with "
                + "value(forKeyPath:).)",
            keyPath: keyPath, object: objectText, observer: nil, thread: CurrentThread.description)
    }

    private static func unknownKey(objectText: String, object: AnyObject?, key: String, setting: Bool) -> KVOMisuse {
        let firstKey = KeyPathSyntax.firstKey(of: key)
        let kvoObject = object as? KVOObject
        if kvoObject != nil, !ReflectionUnavailableNotice.isReflectionAvailable {
            return reflectionUnavailable(objectText: objectText, key: key, setting: setting)
        }
        let table = kvoObject.map { StoredPropertyTable.for(type(of: $0)) }
        let isUninitializedLazy =
            !setting
            && (kvoObject.flatMap { object in table?.property(named: firstKey)?.isUninitialized(in: object) } ?? false)
        let isConstant = setting && (table?.property(named: firstKey)?.isConstant ?? false)
        let selector = setting ? "setValue:forUndefinedKey:" : "valueForUndefinedKey:"
        return KVOMisuse(
            kind: .unknownKey, exceptionName: "NSUnknownKeyException",
            message: "[\(objectText) \(selector)]: this class is not key value coding-compliant for the key \(key)."
                + refusalNote(table?.refusal(of: firstKey), key: firstKey, isUninitializedLazy, isConstant),
            keyPath: key, object: objectText, observer: nil, thread: CurrentThread.description)
    }

    /// A key a ``KVOObject`` does not answer, in a process without stored-property reflection: no stored property
    /// is a key there, so the key is not blamed as unknown.
    private static func reflectionUnavailable(objectText: String, key: String, setting: Bool) -> KVOMisuse {
        let (selector, verb) = setting ? ("setValue:forUndefinedKey:", "set") : ("valueForUndefinedKey:", "read")
        return KVOMisuse(
            kind: .reflectionUnavailable, exceptionName: "NSUnknownKeyException",
            message: "[\(objectText) \(selector)]: cannot \(verb) the key \(key): the Swift runtime of this process offers "
                + "no reflection, so GuardCore's key-value coding sees no stored property (it needs iOS 13.4, macOS "
                + "10.15.4, tvOS 13.4 or watchOS 6.2). Override value(forKey:) to answer the key.",
            keyPath: key, object: objectText, observer: nil, thread: CurrentThread.description)
    }

    /// Why a stored property is not a key (or not a settable one), or "" for an unknown key.
    private static func refusalNote(
        _ refusal: StoredPropertyTable.Refusal?, key: String, _ isUninitializedLazy: Bool, _ isConstant: Bool
    ) -> String {
        switch refusal {
        case .notAStrongReference:
            return " (\(key) is a weak or unowned stored property whose kind of reference the Swift runtime does not "
                + "describe, so GuardCore's key-value coding cannot read it safely; override value(forKey:) to expose "
                + "it.)"
        case .unownedUnsafe:
            return " (\(key) is an unowned(unsafe) stored property: its object may be gone without a trace, so "
                + "GuardCore's key-value coding never reads it; override value(forKey:) to expose it.)"
        case .reflectedAsEmptyTuple:
            return " (\(key) is a stored property that reflection reports as `()`, such as one of a noncopyable type, "
                + "which GuardCore's key-value coding cannot copy; override value(forKey:) to expose it.)"
        case nil where isUninitializedLazy:
            return " (\(key) is a lazy property that has not been read yet: GuardCore's key-value coding reads its "
                + "storage and cannot run its initializer; read it once first, or override value(forKey:) to expose "
                + "it.)"
        case nil where isConstant:
            return " (\(key) is a constant (let): key-value coding reads it but never sets it.)"
        case nil:
            return ""
        }
    }

    /// An object as `<Type: 0xADDRESS>`, any other value as `<Type>`.
    static func describe(_ value: Any) -> String {
        if let object = objectIfAny(value) { return ObjectDescription.of(object) }
        return "<\(ObjectDescription.typeName(type(of: value)))>"
    }

    private static func objectIfAny(_ value: Any) -> AnyObject? {
        type(of: value) is AnyClass ? value as AnyObject : nil
    }

    /// A value as a message shows it: `"text"`, `42`, `<Person: 0x…>`, `nil`; then its type in parentheses.
    private static func describeValue(_ value: Any?) -> String {
        guard let value = value.flatMap(flattenOptional) else { return "nil" }
        let text: String
        if let string = value as? String {
            text = "\"\(string.count > 64 ? String(string.prefix(64)) + "…" : string)\""
        } else if objectIfAny(value) != nil {
            text = describe(value)
        } else {
            let described = String(describing: value)
            text = described.count > 64 ? String(described.prefix(64)) + "…" : described
        }
        return "\(text) (a \(ObjectDescription.typeName(type(of: value))))"
    }
}
