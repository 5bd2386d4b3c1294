/// Tells whether two key paths whose printed forms show only accessor addresses (`.<computed 0x… (Int)>`, as on
/// Linux) reach the same computed properties, whatever their root types.
///
/// `\Student.age` and `\Person.age` (for `age` declared in `Person`) use different accessor thunks, so their printed
/// addresses differ, and a settable computed property of the same type declared beside `age` prints just like it
/// once the addresses are masked. What does not differ is each computed component's identity, which Swift stores
/// just before the component's getter and compares to decide key path equality: it is the property's, not the
/// root's. The identity is read from the key path's storage at the word before the printed getter address, searched
/// only inside the storage the key path's buffer header declares.
enum KeyPathComponentIdentity {
    /// The identity of each computed component of `keyPath`, in order; `nil` when its printed form shows no accessor
    /// address (it names its components instead) or an address cannot be found where the component must be.
    static func computedIdentities(of keyPath: AnyKeyPath) -> [UInt]? {
        let getters = printedAccessorAddresses(of: String(describing: keyPath))
        guard !getters.isEmpty else { return nil }
        return withExtendedLifetime(keyPath) { () -> [UInt]? in
            let object = UnsafeRawPointer(Unmanaged.passUnretained(keyPath).toOpaque())
            let word = MemoryLayout<UInt>.size
            // The object: its header (two words), the cached KVC string pointer, then the buffer: a 32-bit header
            // whose low 24 bits are the size of the components that follow it, word-aligned.
            let bufferHeader = object.load(fromByteOffset: 3 * word, as: UInt32.self)
            let componentsStart = 4 * word
            let componentsSize = Int(bufferHeader & 0x00FF_FFFF)
            guard componentsSize >= 2 * word, componentsSize <= 64 * word * getters.count else { return nil }
            let componentsEnd = componentsStart + componentsSize
            var identities: [UInt] = []
            var offset = componentsStart + word
            for getter in getters {
                while offset + word <= componentsEnd, object.load(fromByteOffset: offset, as: UInt.self) != getter {
                    offset += word
                }
                guard offset + word <= componentsEnd else { return nil }
                identities.append(object.load(fromByteOffset: offset - word, as: UInt.self))
                offset += word
            }
            return identities
        }
    }

    /// The addresses printed in each `<computed 0x…` of `text`, in order.
    private static func printedAccessorAddresses(of text: String) -> [UInt] {
        let marker = "<computed 0x"
        var addresses: [UInt] = []
        var rest = Substring(text)
        while let range = rest.firstRange(of: marker) {
            let digits = rest[range.upperBound...].prefix { $0.isHexDigit }
            guard let address = UInt(digits, radix: 16) else { return [] }
            addresses.append(address)
            rest = rest[digits.endIndex...]
        }
        return addresses
    }
}
