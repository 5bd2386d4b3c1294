/// Reads one computed component of a Swift key path on an object of its own, through the getter the key path stores
/// for it (``KeyPathStorage/Component/getter``), the way the standard library projects a key path.
///
/// The standard library calls a component's getter as `@convention(thin) (Root, UnsafeRawPointer, Int) -> Value` from
/// generic code: the root is passed and the value returned indirectly, followed by the component's argument buffer
/// and its size (none for a property). The call here is generic over both types the same way, so it uses the same
/// convention. It lets ``KeyNameProbe`` read one step of a key path with an optional chain or a force unwrap
/// (`\.link!.age`) without evaluating the whole key path, which would trap on a `nil` link.
enum KeyPathComponentGetter {
    /// The value the getter `getter` (a computed property's, never a subscript's) reads from `object`, whose class
    /// declares or inherits the property; `valueType` is the property's type.
    static func value(of getter: UnsafeRawPointer, on object: KVOObject, valueType: Any.Type) -> Any {
        func read<Value>(_ type: Value.Type) -> Any {
            call(getter, on: object, as: type)
        }
        return _openExistential(valueType, do: read)
    }

    @inline(never)
    private static func call<Root, Value>(_ getter: UnsafeRawPointer, on root: Root, as type: Value.Type) -> Value {
        typealias Getter = @convention(thin) (Root, UnsafeRawPointer, Int) -> Value
        // The argument buffer of a property without arguments is never read; the standard library passes the
        // accessors' own address, and so does this.
        return unsafeBitCast(getter, to: Getter.self)(root, getter, 0)
    }
}
