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
    /// Apple platforms only: an event reaches the unified log under the sink's subsystem and category.
    func testSystemLogSinkWritesToTheUnifiedLog() throws {
        guard #available(macOS 12.0, *) else { throw XCTSkip("OSLogStore needs macOS 12") }
        let subsystem = "KVOGuard.tests.\(UUID().uuidString)"
        let sink = SystemLogSink(subsystem: subsystem, category: "guard-tests")
        XCTAssertEqual(sink.subsystem, subsystem)
        XCTAssertEqual(sink.category, "guard-tests")
        let event = GuardDiagnostic(
            kind: .doubleRemoval, observerType: "Observer", objectType: "Model", objectAddress: 0x1000,
            keyPath: "age", callSite: .init(file: "App/File.swift", line: 7), thread: "main")
        sink.record(event)
        let store = try OSLogStore(scope: .currentProcessIdentifier)
        var messages: [String] = []
        for _ in 0..<50 where messages.isEmpty {
            let entries = try store.getEntries(
                at: store.position(timeIntervalSinceEnd: -60),
                matching: NSPredicate(format: "subsystem == %@", subsystem))
            messages = entries.compactMap { $0 as? OSLogEntryLog }.map(\.composedMessage)
            if messages.isEmpty { Thread.sleep(forTimeInterval: 0.1) }
        }
        XCTAssertEqual(messages, [event.description])
    }
    #endif
}
