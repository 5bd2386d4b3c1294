/// A fingerprint of a history, to tell whether two runs recorded exactly the same thing.
///
/// Meaningful for controlled runs, whose times are logical ticks and whose ids and values are handed out in a
/// deterministic order; chaos runs differ in their times every time.
extension History {
    /// 16 hex digits of a 64-bit FNV-1a hash over every operation, delivery and lifetime fact, in order.
    public var digest: String {
        var hash = FNV1a()
        for record in operations {
            hash.add(record.id, record.parent, record.worker, record.index, Int(record.kind.rawValue), record.controller)
            hash.add(record.observer, record.object, record.key?.rawValue ?? -1, Int(record.options.rawValue))
            hash.add(Int(record.outcome.rawValue), Int(truncatingIfNeeded: record.call), Int(truncatingIfNeeded: record.ret))
            hash.add(record.oldValue, record.newValue, record.oldSum, record.newSum, record.replacement)
            hash.add(record.oldLeaf, record.newLeaf, Int(record.changeKind), Int(bitPattern: UInt(record.indexMask)))
            // Only gauges that were ever set: a history without sets of `gauge` (every file written before it existed)
            // keeps its digest.
            if Self.gaugeWasSet(record.oldGauge) || Self.gaugeWasSet(record.newGauge) {
                hash.add(record.oldGauge, record.newGauge)
            }
            hash.add(record.context, record.typedKey?.rawValue ?? -1, record.answer)
            hash.add(record.action.description)
        }
        for delivery in deliveries {
            hash.add(delivery.registration, delivery.cause, delivery.worker, delivery.sequence)
            hash.add(Int(truncatingIfNeeded: delivery.time), Int(delivery.kind), delivery.isPrior ? 1 : 0)
            hash.add(delivery.hasOld ? 1 : 0, delivery.hasNew ? 1 : 0, delivery.oldValue, delivery.newValue)
            hash.add(delivery.observer, delivery.keyPathMatches ? 1 : 0, Int(bitPattern: UInt(delivery.indexMask)))
        }
        for diagnostic in diagnostics {
            hash.add(diagnostic.kind.rawValue)
            hash.add(diagnostic.reason?.rawValue ?? "")
            hash.add(Self.withoutAddresses(diagnostic.keyPath ?? ""))
            hash.add(diagnostic.operation, diagnostic.worker, Int(truncatingIfNeeded: diagnostic.time))
        }
        for (id, time) in observerDeinitTimes.sorted(by: { $0.key < $1.key }) { hash.add(id, Int(truncatingIfNeeded: time)) }
        for (id, time) in controllerEndStartTimes.sorted(by: { $0.key < $1.key }) { hash.add(id, Int(truncatingIfNeeded: time)) }
        for (id, time) in controllerEndTimes.sorted(by: { $0.key < $1.key }) { hash.add(id, Int(truncatingIfNeeded: time)) }
        for (controller, observer) in controllerObservers.sorted(by: { $0.key < $1.key }) { hash.add(controller, observer) }
        for controller in weakControllers.sorted() { hash.add(controller) }
        // Not hashed: `objectDeinitTimes` and `releasedObjectsAliveAtEnd`, recorded since seed files carry digests. They
        // follow from the operations and deliveries hashed above, and hashing them would make every seed file recorded
        // before them look inexact on replay.
        let value = hash.value
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Whether a link's `link.gauge` value shows a set of `gauge` (a middle object's untouched gauge is 0; no middle
    /// object, or one without `gauge`, gives ``StressValue/nilValue``).
    static func gaugeWasSet(_ value: Int) -> Bool {
        value != 0 && value != StressValue.nilValue
    }

    /// `text` with every hexadecimal address (`0x` and its digits) replaced by `0x?`. A Swift key path without names
    /// is rendered with the addresses of its accessors (`\Model.<computed 0x000055e18588cea0 (Int)>`), and those
    /// move with every process (address space layout randomization): the key path a diagnostic names must not make
    /// a replay in another process look different from its recording.
    static func withoutAddresses(_ text: String) -> String {
        let characters = Array(text)
        var result = ""
        var index = 0
        while index < characters.count {
            guard characters[index] == "0", index + 1 < characters.count, characters[index + 1] == "x" else {
                result.append(characters[index])
                index += 1
                continue
            }
            var end = index + 2
            while end < characters.count, characters[end].isHexDigit { end += 1 }
            result += end > index + 2 ? "0x?" : "0x"
            index = end
        }
        return result
    }
}

/// 64-bit FNV-1a, fed with integers (as 8 little-endian bytes) and strings (as UTF-8 and a terminator).
private struct FNV1a {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func add(_ numbers: Int...) {
        for number in numbers {
            var bits = UInt64(bitPattern: Int64(number))
            for _ in 0..<8 {
                byte(UInt8(truncatingIfNeeded: bits))
                bits >>= 8
            }
        }
    }

    mutating func add(_ text: String) {
        for unit in text.utf8 { byte(unit) }
        byte(0xFF)
    }

    private mutating func byte(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
}
