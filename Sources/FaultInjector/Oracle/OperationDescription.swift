/// Renders recorded operations for violation messages: `observe #4294967301 (worker 0 op 17: controller 12,
/// object 3, sum [initial,new])`.
enum OperationDescription {
    static func of(_ record: OperationRecord) -> String {
        let place = record.index >= 0 ? "worker \(record.worker) op \(record.index)" : "worker \(record.worker), in a handler"
        var parts: [String] = []
        if record.controller >= 0 { parts.append("controller \(record.controller)") }
        if record.object >= 0 { parts.append("object \(record.object)") }
        if let key = record.key { parts.append(key.name) }
        if record.kind == .observe { parts.append(record.options.text) }
        if record.kind == .mutate { parts.append("\(record.oldValue)→\(record.newValue)") }
        return "\(record.kind) (\(place): \(parts.joined(separator: ", ")))"
    }
}
