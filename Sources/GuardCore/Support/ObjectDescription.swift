/// Renders objects the way Foundation's exception messages do: `<TypeName: 0x00006000012c4000>`.
package enum ObjectDescription {
    /// `<TypeName: 0xADDRESS>` for `object`.
    package static func of(_ object: AnyObject) -> String {
        describe(type: type(of: object), address: address(of: object))
    }

    /// `<TypeName: 0xADDRESS>` for a type and an address recorded earlier (the object may be gone).
    package static func describe(type: Any.Type, address: UInt) -> String {
        describe(typeName: typeName(type), address: address)
    }

    /// `<TypeName: 0xADDRESS>` for a type name and an address.
    package static func describe(typeName: String, address: UInt) -> String {
        "<\(typeName): \(hex(address))>"
    }

    /// The object's address as an integer.
    package static func address(of object: AnyObject) -> UInt {
        UInt(bitPattern: ObjectIdentifier(object))
    }

    /// `0x` followed by the address as sixteen hexadecimal digits.
    package static func hex(_ address: UInt) -> String {
        let digits = String(address, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }

    /// The unqualified type name: `Person`, not `MyApp.Person`.
    package static func typeName(_ type: Any.Type) -> String {
        String(describing: type)
    }

    /// A raw context pointer as Foundation prints it (`0x0` for nil).
    package static func context(_ pointer: UnsafeMutableRawPointer?) -> String {
        guard let pointer else { return "0x0" }
        return "0x" + String(UInt(bitPattern: pointer), radix: 16)
    }
}
