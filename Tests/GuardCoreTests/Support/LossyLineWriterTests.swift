import Foundation
import XCTest

@testable import GuardCore

/// The writer of diagnostics never waits for a pipe's reader: what the pipe cannot take now is lost, whole lines stay
/// whole, and a cut line never has the next line glued onto it.
final class LossyLineWriterTests: XCTestCase {
    private static let line = String(repeating: "x", count: 99) + "\n"

    /// 4,000 lines (about 400 KB) into a pipe nobody reads return promptly; the pipe then holds whole lines only.
    func testAFullPipeLosesLinesInsteadOfBlocking() throws {
        let pipe = try OwnPipe()
        let writer = LossyLineWriter(descriptor: pipe.writeEnd)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for _ in 0..<4_000 { writer.write(Self.line) }
            finished.signal()
        }
        if finished.wait(timeout: .now() + 60) == .timedOut {
            XCTFail("the writer blocked on the full pipe")
            while finished.wait(timeout: .now() + 0.1) == .timedOut { _ = pipe.readAvailable() }  // let it go
            return
        }
        let lines = pipe.readAvailable().split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.last, "", "the pipe ends with a whole line")
        let whole = lines.dropLast()
        XCTAssertGreaterThan(whole.count, 0)
        XCTAssertLessThan(whole.count, 4_000, "a 64 KiB pipe cannot hold 400 KB: lines were lost")
        XCTAssertTrue(whole.allSatisfy { $0 + "\n" == Self.line }, "only whole lines")
    }

    #if os(Linux)
    /// Linux: a pipe whose reader is gone reports an error to `poll(2)`, so the text is lost without a write and the
    /// process gets no SIGPIPE. SIGPIPE is set to its default action meanwhile: a write would stop this test process.
    func testAPipeWithoutReaderLosesTheTextWithoutSIGPIPE() throws {
        let pipe = try OwnPipe()
        pipe.closeReadEnd()
        let previous = signal(SIGPIPE, SIG_DFL)
        defer { signal(SIGPIPE, previous) }
        LossyLineWriter(descriptor: pipe.writeEnd).write(Self.line)
        XCTAssertGreaterThanOrEqual(fcntl(pipe.writeEnd, F_GETFD), 0, "alive, and the descriptor is left open")
    }
    #endif

    /// A descriptor that is not open loses the text. (`RLIMIT_NOFILE` is one no descriptor of this process can have.)
    func testADescriptorThatIsNotOpenLosesTheText() {
        let neverOpen = Int32(getdtablesize())
        XCTAssertEqual(fcntl(neverOpen, F_GETFD), -1)
        LossyLineWriter(descriptor: neverOpen).write(Self.line)
        XCTAssertEqual(fcntl(neverOpen, F_GETFD), -1)
    }

    #if os(Linux)
    /// A line longer than a pipe can take is cut at a piece boundary; the next line written first ends the cut one,
    /// so it starts on a line of its own. Linux only: the pipe is shrunk to two pages with `F_SETPIPE_SZ`.
    func testACutLineIsEndedBeforeTheNextLine() throws {
        let pipe = try OwnPipe()
        let page = LossyLineWriter.pieceLimit
        XCTAssertEqual(fcntl(pipe.writeEnd, setPipeSize, Int32(2 * page)), Int32(2 * page))
        let writer = LossyLineWriter(descriptor: pipe.writeEnd)
        writer.write(String(repeating: "a", count: 3 * page) + "\n")
        XCTAssertEqual(pipe.readAvailable(), String(repeating: "a", count: 2 * page), "cut after two pieces")
        writer.write("next\n")
        XCTAssertEqual(pipe.readAvailable(), "\nnext\n")
        writer.write("then\n")
        XCTAssertEqual(pipe.readAvailable(), "then\n", "one ending only")
    }
    #endif

    /// Pieces end after the last newline that fits, so whole lines stay whole; a line longer than a piece is cut at
    /// the limit, moved back to the start of a UTF-8 character.
    func testPiecesEndAtLinesOrCharacters() {
        let limit = LossyLineWriter.pieceLimit
        let twoLines = String(repeating: "a", count: limit - 10) + "\n" + String(repeating: "b", count: 20) + "\n"
        XCTAssertEqual(Self.pieceEnds(twoLines), [limit - 9, limit + 12])
        let short = "short\n"
        XCTAssertEqual(Self.pieceEnds(short), [6])
        // "é" is two bytes; the limit falls on the second byte of one.
        let accented = String(repeating: "a", count: limit - 1) + "é" + "tail\n"
        XCTAssertEqual(Self.pieceEnds(accented), [limit - 1, limit + 6])
    }

    private static func pieceEnds(_ text: String) -> [Int] {
        var text = text
        return text.withUTF8 { bytes in
            var ends: [Int] = []
            var start = 0
            while start < bytes.count {
                start = LossyLineWriter.pieceEnd(in: bytes, from: start)
                ends.append(start)
            }
            return ends
        }
    }
}

#if os(Linux)
/// `F_SETPIPE_SZ` (Linux's `fcntl` command that sets a pipe's capacity), which Glibc's module does not import.
private let setPipeSize: Int32 = 1031
#endif

/// A pipe this test owns; its read end is non-blocking (the write end, the one under test, is left blocking).
private final class OwnPipe {
    let readEnd: Int32
    let writeEnd: Int32
    private var readEndOpen = true

    init() throws {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw POSIXError(.EMFILE) }
        readEnd = descriptors[0]
        writeEnd = descriptors[1]
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        closeReadEnd()
        close(writeEnd)
    }

    func closeReadEnd() {
        if readEndOpen { close(readEnd) }
        readEndOpen = false
    }

    /// Everything the pipe holds now.
    func readAvailable() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
