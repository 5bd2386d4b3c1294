import Foundation

/// How many rounds fit in memory at once. A round's process records every operation it runs until the oracle has
/// judged them, so its memory grows with the round's size (a default chaos round of 64,000 operations peaks at about
/// 200 MB, a 4,096-queue round of 4 million at about 9 GB): rounds at once beyond what memory holds would end in the
/// kernel killing one, which would read as a crash of the system under test.
public enum MemoryBudget {
    /// The bytes a round of `operations` operations is expected to peak at in its process (measured in release
    /// builds, rounded up).
    public static func roundBytes(operations: Int) -> UInt64 {
        let perOperation: UInt64 = 2_400
        return 100_000_000 + UInt64(max(0, operations)).multipliedReportingOverflow(by: perOperation).partialValue
    }

    /// The memory new processes may use now: `MemAvailable` of `/proc/meminfo` on Linux, else the physical memory;
    /// `nil` where neither is known.
    public static var availableBytes: UInt64? {
        #if os(Linux)
        if let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8), let bytes = available(meminfo: text) {
            return bytes
        }
        #endif
        let physical = ProcessInfo.processInfo.physicalMemory
        return physical > 0 ? physical : nil
    }

    /// The most rounds of `operations` operations that fit at once in three quarters of `available` bytes (the rest
    /// left to the parent and whatever else runs), at least 1; no limit (`Int.max`) when `available` is unknown.
    public static func jobs(fitting operations: Int, in available: UInt64?) -> Int {
        guard let available else { return .max }
        let fitting = (available / 4 * 3) / roundBytes(operations: operations)
        return max(1, Int(clamping: fitting))
    }

    /// `MemAvailable` of a `/proc/meminfo` text in bytes, or `nil` without that line.
    static func available(meminfo: String) -> UInt64? {
        for line in meminfo.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kilobytes = UInt64(fields[1]) else { return nil }
            return kilobytes * 1_024
        }
        return nil
    }
}
