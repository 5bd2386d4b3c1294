#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process talking in lines: its standard input and output are pipes to this process, its standard error
/// goes to a log file. Reads wait at most a given time, so a child that hangs can be noticed and killed.
///
/// Only the thread that owns it uses it (it is not thread-safe). The parent ignores SIGPIPE once a child has been
/// started, so writing to a child that died fails with an error instead of killing the parent.
final class ChildProcess {
    /// Why a child could not be started.
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    /// What a read found.
    enum Read {
        /// One line, without its newline.
        case line([UInt8])
        /// The child closed its standard output (it exited or died).
        case endOfFile
        /// No complete line arrived in time.
        case timedOut
    }

    /// The child's process id.
    let pid: pid_t
    /// Where the child's standard error goes.
    let logPath: String
    private var input: Int32
    private let output: Int32
    private var buffer: [UInt8] = []
    private var scanned = 0
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var ended: ProcessEnd?

    /// Starts `executable` with `arguments` and `environment` (the complete environment, `NAME=value` each).
    init(executable: String, arguments: [String], environment: [String], logPath: String) throws {
        #if os(Linux) || os(macOS)
        Self.ignoreBrokenPipes
        let toChild = try Self.pipe()
        let fromChild: (read: Int32, write: Int32)
        do {
            fromChild = try Self.pipe()
        } catch {
            close(toChild.read)
            close(toChild.write)
            throw error
        }
        let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard log >= 0 else {
            for descriptor in [toChild.read, toChild.write, fromChild.read, fromChild.write] { close(descriptor) }
            throw StartError(description: "cannot create the child's log file \(logPath): \(Self.lastError())")
        }
        defer {
            close(toChild.read)
            close(fromChild.write)
            close(log)
        }

        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copies; every other descriptor of ours is close-on-exec.
        posix_spawn_file_actions_adddup2(&actions, toChild.read, 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild.write, 1)
        posix_spawn_file_actions_adddup2(&actions, log, 2)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        // Its own process group: a terminal's Ctrl-C (or a signal a CI runner sends the job's process group) reaches
        // this process, which reports the interruption, not the children, whose deaths would read as crashes of the
        // system under test. A child whose parent is gone ends by itself.
        #if canImport(Darwin)
        var attributes: posix_spawnattr_t?
        #else
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        var child = pid_t()
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            close(toChild.write)
            close(fromChild.read)
            throw StartError(description: "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
        ChildProcessRegistry.shared.add(child)
        input = toChild.write
        output = fromChild.read
        self.logPath = logPath
        #else
        throw StartError(description: "child processes are not supported on this platform")
        #endif
    }

    deinit {
        if ended == nil { ChildProcessRegistry.shared.remove(pid) }
        if input >= 0 { close(input) }
        close(output)
    }

    /// Writes `line` and a newline to the child's standard input; `false` if the child no longer reads it.
    func send(_ line: [UInt8]) -> Bool {
        guard input >= 0 else { return false }
        var bytes = line
        bytes.append(0x0A)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Closes the child's standard input, which tells a line-reading child that nothing more is coming.
    func closeInput() {
        guard input >= 0 else { return }
        close(input)
        input = -1
    }

    /// The next line the child writes, waiting at most `timeout` seconds for it.
    func readLine(timeout: Double) -> Read {
        let deadline = Self.deadline(after: timeout)
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                scanned = 0
                return .line(line)
            }
            scanned = buffer.count
            let now = MonotonicClock.now
            guard now < deadline else { return .timedOut }
            var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(Double(deadline - now) / 1e6 + 1, Double(Int32.max)))
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .endOfFile
            }
            if count == 0 { return .endOfFile }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Waits up to `timeout` seconds for the child to end by itself; `nil` if it is still running.
    func waitForEnd(timeout: Double) -> ProcessEnd? {
        if let ended { return ended }
        let deadline = Self.deadline(after: timeout)
        while true {
            let (result, status, error) = ChildProcessRegistry.shared.reap(pid)
            if result == pid {
                ended = ProcessEnd(waitStatus: status)
                return ended
            }
            if result < 0, error != EINTR {
                // Not our child any more (already reaped); nothing left to wait for.
                ended = .exited(-1)
                return ended
            }
            guard MonotonicClock.now < deadline else { return nil }
            usleep(2_000)
        }
    }

    /// Kills the child (SIGKILL) and reaps it.
    @discardableResult
    func kill() -> ProcessEnd {
        if let ended { return ended }
        ChildProcessRegistry.shared.kill(pid)
        return waitForEnd(timeout: 30) ?? .signalled(SIGKILL)
    }

    /// The child's standard error from byte `offset` on (at most `limit` bytes: a crash's reason comes first, the
    /// backtraces of every thread after it), as text.
    func log(from offset: Int, limit: Int = 4 << 20) -> String {
        let descriptor = open(logPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        let size = min(Int(lseek(descriptor, 0, SEEK_END)), offset + limit)
        let start = offset
        guard size > start, lseek(descriptor, off_t(start), SEEK_SET) >= 0 else { return "" }
        var bytes = [UInt8](repeating: 0, count: size - start)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        return String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
    }

    /// The current size of the child's log: where the next round's messages will start.
    var logSize: Int {
        var info = stat()
        return stat(logPath, &info) == 0 ? Int(info.st_size) : 0
    }

    /// Removes the log file.
    func removeLog() {
        unlink(logPath)
    }

    // MARK: Helpers

    /// The monotonic time `seconds` from now (at most about four months ahead, so `.infinity` works).
    private static func deadline(after seconds: Double) -> UInt64 {
        MonotonicClock.now + UInt64(min(max(0, seconds), 1e7) * 1e9)
    }

    private static let ignoreBrokenPipes: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()

    /// A pipe whose both ends close on exec (the child gets only the copies made by the spawn's file actions).
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        guard descriptors.withUnsafeMutableBufferPointer({ systemPipe($0.baseAddress) }) == 0 else {
            throw StartError(description: "cannot create a pipe: \(lastError())")
        }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }
}

/// `pipe(2)`, which `ChildProcess.pipe()` shadows.
private func systemPipe(_ descriptors: UnsafeMutablePointer<Int32>?) -> Int32 {
    pipe(descriptors)
}
