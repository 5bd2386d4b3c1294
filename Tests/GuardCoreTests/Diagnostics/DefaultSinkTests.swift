import Foundation
import GuardCore
import XCTest

#if canImport(OSLog)
import OSLog
#endif

/// Where diagnostics go by default: the unified log on Apple platforms, standard error elsewhere.
final class DefaultSinkTests: XCTestCase {
    func testTheDefaultSinkIsThePlatformsLog() {
        #if canImport(os)
        XCTAssertTrue(GuardDiagnostics.defaultSink is SystemLogSink)
        #else
        XCTAssertTrue(GuardDiagnostics.defaultSink is StandardErrorSink)
        #endif
    }

    #if os(macOS)
    /// Apple platforms only: the sink keeps its subsystem and category, and (where `OSLogStore` can read the log
    /// back, macOS 12 on) an event reaches the unified log under them.
    func testSystemLogSinkWritesToTheUnifiedLog() throws {
        let subsystem = "KVOGuard.tests.\(UUID().uuidString)"
        let sink = SystemLogSink(subsystem: subsystem, category: "guard-tests")
        XCTAssertEqual(sink.subsystem, subsystem)
        XCTAssertEqual(sink.category, "guard-tests")
        let event = GuardDiagnostic(
            kind: .doubleRemoval, observerType: "Observer", objectType: "Model", objectAddress: 0x1000,
            keyPath: "age", callSite: .init(file: "App/File.swift", line: 7), thread: "main")
        sink.record(event)
        if #available(macOS 12.0, *) {
            XCTAssertEqual(try Self.messages(loggedUnder: subsystem), [event.description])
        }
    }

    /// The messages the unified log holds for `subsystem` from this process, waiting up to 5 s for the first.
    @available(macOS 12.0, *)
    private static func messages(loggedUnder subsystem: String) throws -> [String] {
        let store = try OSLogStore(scope: .currentProcessIdentifier)
        var messages: [String] = []
        for _ in 0..<50 where messages.isEmpty {
            let entries = try store.getEntries(
                at: store.position(timeIntervalSinceEnd: -60),
                matching: NSPredicate(format: "subsystem == %@", subsystem))
            messages = entries.compactMap { $0 as? OSLogEntryLog }.map(\.composedMessage)
            if messages.isEmpty { Thread.sleep(forTimeInterval: 0.1) }
        }
        return messages
    }
    #endif
}
