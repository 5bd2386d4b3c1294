import Foundation

/// The cores this process may run on: what `--jobs` defaults to.
public enum AvailableCores {
    /// The smaller of Foundation's active processor count and, on Linux, the CPUs in this process's affinity mask
    /// (`sched_getaffinity`, as `taskset` or a CI runner's cpuset sets it); at least 1.
    public static var count: Int {
        var cores = ProcessInfo.processInfo.activeProcessorCount
        if let allowed = affinityCount { cores = min(cores, allowed) }
        return max(1, cores)
    }

    /// The CPUs this process's affinity mask allows (`Cpus_allowed` in `/proc/self/status`, the mask
    /// `sched_getaffinity` returns), or `nil` where it is not known.
    static var affinityCount: Int? {
        #if os(Linux)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        return allowedCount(status: status)
        #else
        return nil
        #endif
    }

    /// The CPUs counted in the `Cpus_allowed:` line of a `/proc/PID/status` text (a hexadecimal mask in groups of
    /// eight digits separated by commas), or `nil` without one.
    static func allowedCount(status: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix("Cpus_allowed:") {
            let mask = line.dropFirst("Cpus_allowed:".count).trimmingCharacters(in: .whitespaces)
            var count = 0
            for character in mask where character != "," {
                guard let nibble = character.hexDigitValue else { return nil }
                count += nibble.nonzeroBitCount
            }
            return count > 0 ? count : nil
        }
        return nil
    }
}
