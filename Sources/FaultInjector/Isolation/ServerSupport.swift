import Foundation

/// Writing one answer line to a descriptor (a server's standard output), whole.
enum ServerOutput {
    /// Writes `line` and a newline; `false` if the reader went away.
    static func write(line: Data, to descriptor: Int32) -> Bool {
        var bytes = [UInt8](line)
        bytes.append(0x0A)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}

/// Lines from a file descriptor, read as they come (blocking).
struct LineInput {
    let descriptor: Int32
    private var buffer: [UInt8] = []
    private var scanned = 0
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next line without its newline, or `nil` at the end of the input.
    mutating func next() -> [UInt8]? {
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                scanned = 0
                return line
            }
            scanned = buffer.count
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }
}

/// Process-wide limits a round server sets for itself.
enum ProcessLimits {
    /// A crashing round should leave a verdict, not a core file the size of the process.
    static func disableCoreDumps() {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        #if os(Linux)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
        #else
        _ = setrlimit(RLIMIT_CORE, &limit)
        #endif
    }
}

/// Ends a round server whose parent went away (a server blocked in a hung round would otherwise live on).
enum ParentWatch {
    static func exitWhenOrphaned() {
        let parent = getppid()
        let thread = Thread {
            while getppid() == parent { usleep(250_000) }
            _exit(3)
        }
        thread.stackSize = 64 * 1024
        thread.start()
    }
}
