/// Tells whether two key paths whose printed forms show only accessor addresses (`.<computed 0x… (Int)>`, as on
/// Linux) reach the same computed properties, whatever their root types.
///
/// `\Student.age` and `\Person.age` (for `age` declared in `Person`) use different accessor thunks, so their printed
/// addresses differ, and a settable computed property of the same type declared beside `age` prints just like it
/// once the addresses are masked. What does not differ is each computed component's identity, which Swift stores
/// with the component and compares to decide key path equality: it is the property's, not the root's. It is read
/// from the key path's storage (``KeyPathStorage``).
enum KeyPathComponentIdentity {
    /// The identity of each computed component of `keyPath`, in order; `nil` when its printed form shows no accessor
    /// address (it names its components instead) or its storage cannot be read.
    static func computedIdentities(of keyPath: AnyKeyPath) -> [UInt]? {
        guard String(describing: keyPath).contains("<computed 0x"),
            let components = KeyPathStorage.components(of: keyPath)
        else { return nil }
        return components.compactMap(\.identity)
    }
}
