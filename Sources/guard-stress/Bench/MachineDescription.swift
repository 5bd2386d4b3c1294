import Foundation

/// One line naming the machine a bench ran on, for the table's heading.
enum MachineDescription {
    static var current: String {
        let info = ProcessInfo.processInfo
        var parts: [String] = []
        if let model = processorModel { parts.append(model) }
        parts.append("\(info.activeProcessorCount) of \(info.processorCount) cores active")
        parts.append(String(format: "%.1f GiB", Double(info.physicalMemory) / 1_073_741_824))
        parts.append(info.operatingSystemVersionString)
        return parts.joined(separator: ", ")
    }

    /// The CPU's model name (Linux `/proc/cpuinfo`), if known.
    private static var processorModel: String? {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}
