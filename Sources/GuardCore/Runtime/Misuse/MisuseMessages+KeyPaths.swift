extension MisuseMessages {
    /// A Swift key path without a key-value name, handed to a typed overload (Foundation: `NSUnknownKeyException` for
    /// the `_kvcKeyPathString` it lacks). `description` shows it with every component that has a name.
    static func unnamedKeyPath(object: AnyObject, description: String) -> KVOMisuse {
        let objectText = ObjectDescription.of(object)
        return KVOMisuse(
            kind: .unknownKey, exceptionName: "NSUnknownKeyException",
            message: "[\(objectText) valueForUndefinedKey:]: this class is not key value coding-compliant for the "
                + "key \(description). (A Swift key path has a key-value name when each component is an @Observed "
                + "property or a stored property of a final class, optional chains and force unwraps included; a "
                + "computed property, a subscript, a tuple element or \\.self has none. Observe the string key path "
                + "of what it reads, or make the property @Observed.)",
            keyPath: description, object: objectText, observer: nil, thread: CurrentThread.description)
    }
}
