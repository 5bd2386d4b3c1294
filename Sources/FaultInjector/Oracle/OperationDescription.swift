/// Renders recorded operations for violation messages: `observe #4294967301 (worker 0 op 17: controller 12,
/// object 3, sum [initial,new])`.
package enum OperationDescription {
    package static func of(_ record: OperationRecord) -> String {
        let place: String
        if record.index >= 0 {
            place = "worker \(record.worker) op \(record.index)"
        } else if record.inObjectDeinit {
            place = "worker \(record.worker), in the object's deinit inside #\(record.parent)"
        } else {
            place = "worker \(record.worker), inside #\(record.parent)"
        }
        var parts: [String] = []
        if record.controller >= 0 { parts.append("controller \(record.controller)") }
        if record.object >= 0 { parts.append("object \(record.object)") }
        if let typed = record.typedKey {
            parts.append(typed.text)
        } else if let key = record.key, record.kind != .link, record.kind != .announce, record.kind != .changeItems {
            parts.append(key.name)
        }
        if record.context != 0 { parts.append("context \(record.context)") }
        if record.kind == .observe { parts.append(record.options.text) }
        if record.kind == .mutate || record.kind == .announce { parts.append("\(record.oldValue)→\(record.newValue)") }
        if record.kind == .link { parts.append("link \(show(record.oldValue))→\(show(record.newValue))") }
        return "\(record.kind) #\(record.id) (\(place): \(parts.joined(separator: ", ")))"
    }

    /// A query's answer (or an unobserve-all's count) as a person reads it.
    static func answer(of record: OperationRecord) -> String {
        switch record.kind {
        case .isObserving: return record.answer != 0 ? "true" : "false"
        case .observedKeyPaths:
            let mask = UInt64(bitPattern: Int64(record.answer))
            var names = StressKey.allCases.filter { mask & $0.bit != 0 }.map(\.name)
            if mask & StressWorld.unknownKeyPathBit != 0 { names.append("(a key path no operation observes)") }
            if mask & StressWorld.unsortedKeyPathsBit != 0 { names.append("(not sorted, or a key path twice)") }
            return "[" + names.joined(separator: ", ") + "]"
        default: return String(record.answer)
        }
    }

    private static func show(_ value: Int) -> String {
        value == StressValue.nilValue ? "nil" : "object \(value)"
    }
}
