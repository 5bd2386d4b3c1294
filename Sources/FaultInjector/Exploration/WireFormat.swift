import Foundation

/// The compact binary form in which an explorer's parent and child processes exchange what every execution needs
/// (the request going out, the report coming back): variable-length integers, length-prefixed lists and strings,
/// sent as base64 inside the job's JSON line. Reports are hundreds of steps of small numbers, and `JSONEncoder`'s
/// keyed form of them costs more than the execution they describe.
protocol WireCodable {
    /// Appends this value to `writer`.
    func write(to writer: inout WireWriter)
    /// Reads a value that ``write(to:)`` wrote; throws ``WireReader/Malformed`` for bytes it did not write.
    init(from reader: inout WireReader) throws
}

extension WireCodable {
    /// This value packed, in base64.
    var packed: String {
        var writer = WireWriter()
        write(to: &writer)
        return Data(writer.bytes).base64EncodedString()
    }

    /// The value `packed` holds; throws ``WireReader/Malformed`` if it is not one.
    init(packed: String) throws {
        guard let data = Data(base64Encoded: packed) else { throw WireReader.Malformed(offset: 0) }
        var reader = WireReader([UInt8](data))
        try self.init(from: &reader)
        guard reader.isAtEnd else { throw WireReader.Malformed(offset: reader.offset) }
    }
}

/// Writes values in the wire form: unsigned integers in 7-bit groups, signed ones zigzagged first.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    mutating func write(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func write(_ value: Int64) {
        write(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    mutating func write(_ value: Int) { write(Int64(value)) }

    mutating func write(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func write(_ value: String) {
        let utf8 = Array(value.utf8)
        write(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// An optional: a presence byte, then the value.
    mutating func writeOptional<Value>(_ value: Value?, _ body: (inout WireWriter, Value) -> Void) {
        write(value != nil)
        if let value { body(&self, value) }
    }

    /// A list: its count, then each element.
    mutating func writeList<Element>(_ list: some Collection<Element>, _ body: (inout WireWriter, Element) -> Void) {
        write(UInt64(list.count))
        for element in list { body(&self, element) }
    }
}

/// Reads values in the wire form, throwing ``Malformed`` at the first byte that does not fit.
struct WireReader {
    /// Bytes that are not a value of the expected shape (truncated, or a number out of range).
    struct Malformed: Error, CustomStringConvertible {
        let offset: Int
        var description: String { "malformed packed data at byte \(offset)" }
    }

    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func uint64() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count, shift < 64 else { throw Malformed(offset: offset) }
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    mutating func int64() throws -> Int64 {
        let raw = try uint64()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    mutating func int() throws -> Int { Int(try int64()) }

    /// An integer that must fit `Target` (a count, a byte, a 32-bit number).
    mutating func integer<Target: FixedWidthInteger>(_: Target.Type = Target.self) throws -> Target {
        let start = offset
        guard let value = Target(exactly: try int64()) else { throw Malformed(offset: start) }
        return value
    }

    mutating func bool() throws -> Bool {
        guard offset < bytes.count, bytes[offset] <= 1 else { throw Malformed(offset: offset) }
        offset += 1
        return bytes[offset - 1] == 1
    }

    mutating func string() throws -> String {
        let count = try uint64()
        guard count <= UInt64(bytes.count - offset) else { throw Malformed(offset: offset) }
        let end = offset + Int(count)
        defer { offset = end }
        return String(decoding: bytes[offset..<end], as: UTF8.self)
    }

    mutating func optional<Value>(_ body: (inout WireReader) throws -> Value) throws -> Value? {
        try bool() ? try body(&self) : nil
    }

    mutating func list<Element>(_ body: (inout WireReader) throws -> Element) throws -> [Element] {
        let count = try uint64()
        // Every element takes at least one byte: a count beyond the bytes left is malformed, not a huge allocation.
        guard count <= UInt64(bytes.count - offset) else { throw Malformed(offset: offset) }
        var list: [Element] = []
        list.reserveCapacity(Int(count))
        for _ in 0..<count { list.append(try body(&self)) }
        return list
    }
}
