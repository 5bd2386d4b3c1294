import Foundation
import GuardCore
import XCTest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Diagnostics: the process-wide sink and how to swap it, per-controller sinks, the built-in sinks, and the one-line
/// rendering of an event.
final class GuardDiagnosticsTests: XCTestCase {
    func testProcessWideSinkCanBeSwappedAndIsRestored() {
        let observer = GuardTestObserver()
        let person = Person()
        let outer = CountingSink()
        let inner = CountingSink()
        let before = GuardDiagnostics.sink
        var lines: [Int] = []
        assertNoMisuse {
            GuardDiagnostics.withSink(outer) {
                XCTAssertTrue((GuardDiagnostics.sink as? CountingSink) === outer)
                let controller = ObservationController(observer: observer)
                XCTAssertNil(controller.diagnosticSink, "no sink of its own: events go to the process-wide one")
                GuardDiagnostics.withSink(inner) {
                    lines.append(#line + 1)
                    XCTAssertEqual(controller.unobserve(person, keyPath: "age"), .notRegistered)
                }
                XCTAssertTrue((GuardDiagnostics.sink as? CountingSink) === outer, "the inner sink was restored")
                lines.append(#line + 1)
                XCTAssertEqual(controller.unobserve(person, keyPath: "name"), .notRegistered)
            }
        }
        XCTAssertEqual(
            inner.records, [expectedDiagnostic(.removalOfUnregistered, object: person, keyPath: "age", line: lines[0])])
        XCTAssertEqual(
            outer.records, [expectedDiagnostic(.removalOfUnregistered, object: person, keyPath: "name", line: lines[1])]
        )
        XCTAssertTrue(type(of: GuardDiagnostics.sink) == type(of: before), "the previous process-wide sink is back")
    }

    func testPerControllerSinkOverridesTheProcessWideSinkAndCanBeChanged() {
        let observer = GuardTestObserver()
        let person = Person()
        let global = CountingSink()
        let own = CountingSink()
        let replacement = CountingSink()
        var lines: [Int] = []
        assertNoMisuse {
            GuardDiagnostics.withSink(global) {
                let controller = ObservationController(observer: observer, diagnosticSink: own)
                XCTAssertTrue((controller.diagnosticSink as? CountingSink) === own)
                lines.append(#line + 1)
                controller.unobserve(person, keyPath: "a")
                controller.diagnosticSink = replacement
                lines.append(#line + 1)
                controller.unobserve(person, keyPath: "b")
                controller.diagnosticSink = nil
                lines.append(#line + 1)
                controller.unobserve(person, keyPath: "c")
            }
        }
        XCTAssertEqual(
            own.records, [expectedDiagnostic(.removalOfUnregistered, object: person, keyPath: "a", line: lines[0])])
        XCTAssertEqual(
            replacement.records,
            [expectedDiagnostic(.removalOfUnregistered, object: person, keyPath: "b", line: lines[1])])
        XCTAssertEqual(
            global.records, [expectedDiagnostic(.removalOfUnregistered, object: person, keyPath: "c", line: lines[2])])
    }

    func testClosureSinkReceivesEveryEventOnTheThreadOfTheMistake() {
        let observer = GuardTestObserver()
        let person = Person()
        let received = LockedBox<[(DiagnosticRecord, String)]>([])
        let sink = ClosureSink { event in
            received.mutate { $0.append((event.record, event.thread)) }
        }
        let controller = ObservationController(observer: observer, diagnosticSink: sink)
        var lines: [Int] = []
        let otherThreadDescription = LockedBox("")
        assertNoMisuse {
            controller.observe(person, keyPath: "age") { _, _, change in XCTFail("unexpected handler call: \(change)") }
            lines.append(#line + 1)
            controller.observe(person, keyPath: "age") { _, _, change in XCTFail("unexpected handler call: \(change)") }
            let line = #line + 1
            _ = onOtherThread {
                otherThreadDescription.value = CurrentThread.description
                return controller.unobserve(person, keyPath: "name", line: UInt(line))
            }
            lines.append(line)
        }
        let events = received.value
        XCTAssertEqual(
            events.map(\.0),
            [
                expectedDiagnostic(.duplicateObservation, object: person, keyPath: "age", line: lines[0]),
                expectedDiagnostic(.removalOfUnregistered, object: person, keyPath: "name", line: lines[1]),
            ])
        XCTAssertEqual(events.map(\.1), [CurrentThread.description, otherThreadDescription.value])
        XCTAssertTrue(otherThreadDescription.value.hasPrefix("thread "))
        XCTAssertNotEqual(events.first?.1, events.last?.1)
        if Thread.isMainThread {
            XCTAssertEqual(events.first?.1, "main")
        }
    }

    func testASinkMayCallBackIntoTheController() {
        // Sinks run outside every guard lock: one that queries or even uses the controller must not deadlock.
        let observer = GuardTestObserver()
        let person = Person()
        let seen = LockedBox<[String]>([])
        let controllerBox = LockedBox<ObservationController<GuardTestObserver>?>(nil)
        let sink = ClosureSink { event in
            guard let controller = controllerBox.value else { return }
            let count = controller.registrationCount
            let observing = controller.isObserving(person, keyPath: "age")
            seen.mutate { $0.append("\(event.kind) count=\(count) observing=\(observing)") }
            if event.kind == .duplicateObservation {
                controller.unobserve(person, keyPath: "age")  // removes; no event
            }
        }
        let controller = ObservationController(observer: observer, diagnosticSink: sink)
        controllerBox.value = controller
        withDeadlockWatchdog("a re-entrant sink") {
            assertNoMisuse {
                controller.observe(person, keyPath: "age") { _, _, change in
                    XCTFail("unexpected handler call: \(change)")
                }
                controller.observe(person, keyPath: "age") { _, _, change in
                    XCTFail("unexpected handler call: \(change)")
                }
                controller.unobserve(person, keyPath: "age")
            }
        }
        XCTAssertEqual(
            seen.value, ["duplicateObservation count=1 observing=true", "doubleRemoval count=0 observing=false"])
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(person.observationCount, 0)
        controllerBox.value = nil
    }

    func testDescriptionIsOneReadableLineForEveryKind() {
        let sink = CountingSink()
        let person = Person()
        let root = ChainRoot()
        var controller: ObservationController<GuardTestObserver>?
        var lines: [GuardDiagnostic.Kind: Int] = [:]
        var invalidLine = 0
        assertNoMisuse {
            do {
                let observer = GuardTestObserver()
                controller = ObservationController(observer: observer, diagnosticSink: sink)
                lines[.observerDeallocated] = #line + 1
                controller?.observe(person, keyPath: "age") { _, _, change in
                    XCTFail("unexpected handler call: \(change)")
                }
                lines[.duplicateObservation] = #line + 1
                controller?.observe(person, keyPath: "age") { _, _, change in
                    XCTFail("unexpected handler call: \(change)")
                }
                lines[.invalidArgument] = #line + 1
                controller?.observe(person, keyPath: "nope") { _, _, change in XCTFail("unexpected handler call: \(change)")
                }
                lines[.keyPathUnavailable] = #line + 1
                controller?.observe(root, keyPath: "middle.leaf") { _, _, _ in }
                root.middle = ChainStranger()
                controller?.unobserve(root, keyPath: "middle.leaf")
            }
            person.age = 1
            controller?.unobserve(person, keyPath: "age")
            lines[.doubleRemoval] = #line + 1
            controller?.unobserve(person, keyPath: "age")
            lines[.removalOfUnregistered] = #line + 1
            controller?.unobserve(person, keyPath: "name")
            invalidLine = #line + 1
            controller?.unobserve(Person?.none, keyPath: "age")
        }
        controller = nil
        let summaries: [GuardDiagnostic.Kind: String] = [
            .duplicateObservation: "duplicate observation ignored",
            .doubleRemoval: "double removal ignored",
            .removalOfUnregistered: "removal of an unregistered observation ignored",
            .observerDeallocated: "notification for a deallocated observer dropped",
            .invalidArgument: "invalid argument (key path cannot be observed on this object)",
            .keyPathUnavailable: "key path cannot be followed on the current objects; it reads as nil",
        ]
        let events = sink.events
        XCTAssertEqual(
            events.map(\.kind),
            [
                .duplicateObservation, .invalidArgument, .keyPathUnavailable, .observerDeallocated, .doubleRemoval,
                .removalOfUnregistered, .invalidArgument,
            ])
        XCTAssertEqual(Set(events.map(\.kind)), Set(GuardDiagnostic.Kind.allCases), "every kind is exercised")
        for event in events.dropLast() {
            let text = event.description
            let keyPath = event.keyPath ?? "?"
            let object: AnyObject = event.kind == .keyPathUnavailable ? root : person
            XCTAssertFalse(text.contains("\n"), text)
            XCTAssertTrue(text.hasPrefix("KVOGuard: \(summaries[event.kind] ?? "?"): "), text)
            XCTAssertTrue(text.contains("observer GuardTestObserver"), text)
            XCTAssertTrue(text.contains("object \(rendered(object))"), text)
            XCTAssertTrue(text.contains("key path \"\(keyPath)\""), text)
            XCTAssertTrue(
                text.contains(" at GuardCoreTests/GuardDiagnosticsTests.swift:\(lines[event.kind] ?? -1) "), text)
            XCTAssertTrue(text.contains(" on \(event.thread)"), text)
            XCTAssertTrue(text.hasSuffix("(absorbed; no crash)"), text)
        }
        // No object: that part is left out, the rest stays.
        let nilObject = events.last.map(\.description) ?? ""
        XCTAssertEqual(
            nilObject,
            "KVOGuard: invalid argument (object is nil or deallocated): observer GuardTestObserver, key path \"age\" at "
                + "GuardCoreTests/GuardDiagnosticsTests.swift:\(invalidLine) on \(CurrentThread.description) "
                + "(absorbed; no crash)")
    }

    func testInvalidArgumentSummariesNameTheReason() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let person = Person()
        assertNoMisuse {
            controller.observe(Person?.none, keyPath: "age") { _, _, change in
                XCTFail("unexpected handler call: \(change)")
            }
            controller.observe(person, keyPath: "") { _, _, change in XCTFail("unexpected handler call: \(change)") }
            controller.observe(person, keyPaths: []) { _, _, change in XCTFail("unexpected handler call: \(change)") }
            controller.observe(person, keyPath: "nope") { _, _, change in XCTFail("unexpected handler call: \(change)")
            }
            let orphaned = ObservationController(observer: GuardTestObserver(), diagnosticSink: sink)
            orphaned.observe(person, keyPath: "age") { _, _, change in XCTFail("unexpected handler call: \(change)") }
            let tooLong = Array(repeating: "account", count: 129).joined(separator: ".")
            controller.observe(person, keyPath: tooLong) { _, _, change in XCTFail("unexpected handler call: \(change)") }
            // (A controller that holds objects weakly: one that retained the object would outlive its deinit.)
            let weak = ObservationController(observer: observer, retainsObservedObjects: false, diagnosticSink: sink)
            _ = DeinitObservingModel { model in
                weak.observe(model, keyPath: "level") { _, _, change in XCTFail("unexpected handler call: \(change)") }
            }
        }
        let events = sink.events
        XCTAssertEqual(
            events.map(\.invalidArgument),
            [
                .nilObject, .emptyKeyPath, .emptyKeyPathList, .unobservableKeyPath, .observerDeallocated, .keyPathTooLong,
                .objectDeinitializing,
            ])
        XCTAssertEqual(events.map(\.invalidArgument), GuardDiagnostic.InvalidArgument.allCases.map { Optional($0) })
        let expected = [
            "invalid argument (object is nil or deallocated)", "invalid argument (empty key path)",
            "invalid argument (empty key path list)", "invalid argument (key path cannot be observed on this object)",
            "invalid argument (the controller's observer is gone)",
            "invalid argument (key path has more than 128 components)", "invalid argument (object is running its deinit)",
        ]
        XCTAssertEqual(events.map { $0.description.hasPrefix("KVOGuard: ") }, Array(repeating: true, count: 7))
        for (event, summary) in zip(events, expected) {
            XCTAssertTrue(
                event.description.hasPrefix("KVOGuard: \(summary): observer GuardTestObserver"), event.description)
        }
        XCTAssertFalse(events[2].description.contains("key path \""), "an empty key path list names no key path")
        XCTAssertTrue(events[1].description.contains("key path \"\""), "an empty key path is shown as such")
    }

    func testANormalNotificationEmitsNothing() {
        let observer = GuardTestObserver()
        let own = CountingSink()
        let global = CountingSink()
        let person = Person()
        let log = HandlerLog()
        assertNoMisuse {
            GuardDiagnostics.withSink(global) {
                let controller = ObservationController(observer: observer, diagnosticSink: own)
                let withoutSink = ObservationController(observer: observer)
                controller.observe(
                    person, keyPath: "age", options: [.initial, .new, .old, .prior], handler: log.recording("own"))
                withoutSink.observe(person, keyPath: "age", options: [.initial, .new], handler: log.recording("global"))
                for value in 1...100 { person.age = value }
                controller.unobserve(person, keyPath: "age")
                withoutSink.unobserveAll()
            }
        }
        XCTAssertEqual(log.count, 2 + 100 * 3)
        XCTAssertEqual(own.total, 0)
        XCTAssertEqual(global.total, 0)
    }

    func testCountingSinkCountsKeepsAndResets() {
        let observer = GuardTestObserver()
        let keeping = CountingSink()
        let countingOnly = CountingSink(keepsEvents: false)
        let person = Person()
        let fanOut = ClosureSink { event in
            keeping.record(event)
            countingOnly.record(event)
        }
        let controller = ObservationController(observer: observer, diagnosticSink: fanOut)
        assertNoMisuse {
            controller.unobserve(person, keyPath: "age")
            controller.unobserve(person, keyPath: "age")
            controller.observe(person, keyPath: "age") { _, _, change in XCTFail("unexpected handler call: \(change)") }
            controller.observe(person, keyPath: "age") { _, _, change in XCTFail("unexpected handler call: \(change)") }
            controller.unobserveAll()
            controller.unobserve(person)
        }
        let expectedCounts: [GuardDiagnostic.Kind: Int] = [
            .removalOfUnregistered: 2, .duplicateObservation: 1, .doubleRemoval: 1,
        ]
        XCTAssertEqual(keeping.counts, expectedCounts)
        XCTAssertEqual(countingOnly.counts, expectedCounts)
        XCTAssertEqual(keeping.total, 4)
        XCTAssertEqual(countingOnly.total, 4)
        XCTAssertEqual(keeping.count(of: .removalOfUnregistered), 2)
        XCTAssertEqual(keeping.count(of: .observerDeallocated), 0)
        XCTAssertEqual(
            keeping.events.map(\.kind),
            [.removalOfUnregistered, .removalOfUnregistered, .duplicateObservation, .doubleRemoval])
        XCTAssertEqual(countingOnly.events, [], "a counting-only sink keeps no events")
        keeping.reset()
        XCTAssertEqual(keeping.total, 0)
        XCTAssertEqual(keeping.events, [])
        XCTAssertEqual(keeping.counts, [:])
    }

    func testAnEventIsOneLineWhateverItsFieldsHold() {
        let event = GuardDiagnostic(
            kind: .removalOfUnregistered, observerType: "Observer\nType", objectType: "Model", objectAddress: 0x10,
            keyPath: "va\nlue\" at Fake.swift:1\r\u{2028}\\", callSite: .init(file: "Mod/File\nName.swift", line: 7),
            thread: "evil\nthread")
        let text = event.description
        XCTAssertFalse(text.contains("\n") || text.contains("\r") || text.contains("\u{2028}"), text)
        XCTAssertTrue(text.contains(#"key path "va\nlue\" at Fake.swift:1\r\u{2028}\\""#), text)
        XCTAssertTrue(text.contains(#"observer Observer\nType"#), text)
        XCTAssertTrue(text.contains(#" at Mod/File\nName.swift:7 on evil\nthread "#), text)
        let plain = GuardDiagnostic(
            kind: .doubleRemoval, observerType: "ViewModel", objectType: nil, objectAddress: nil, keyPath: "age",
            callSite: .init(file: "App/ViewModel.swift", line: 42), thread: "main")
        XCTAssertEqual(
            plain.description,
            "KVOGuard: double removal ignored: observer ViewModel, key path \"age\" at App/ViewModel.swift:42 on main "
                + "(absorbed; no crash)")
    }

    func testStandardErrorSinkNeverStopsTheProcessWhenStandardErrorCannotBeWritten() {
        let event = GuardDiagnostic(
            kind: .doubleRemoval, observerType: "ViewModel", objectType: nil, objectAddress: nil, keyPath: "age",
            callSite: .init(file: "App/ViewModel.swift", line: 42), thread: "main")
        let saved = dup(STDERR_FILENO)
        let previousHandler = signal(SIGPIPE, SIG_IGN)
        defer {
            dup2(saved, STDERR_FILENO)
            close(saved)
            signal(SIGPIPE, previousHandler)
        }
        // A pipe nobody reads any more: each write fails with EPIPE.
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        close(ends[0])
        dup2(ends[1], STDERR_FILENO)
        close(ends[1])
        StandardErrorSink().record(event)
        // Standard error closed: each write fails with EBADF.
        close(STDERR_FILENO)
        StandardErrorSink().record(event)
        RuntimeMonitor.withMisusePolicy(.log) {
            RuntimeMonitor.resetMisuseRecords()
            Person().removeObserver(Recorder(), forKeyPath: "age")
            XCTAssertEqual(RuntimeMonitor.reportedMisuses.map(\.kind), [.notRegistered])
            RuntimeMonitor.resetMisuseRecords()
        }
    }

    func testStandardErrorSinkWritesOneLinePerEvent() throws {
        let observer = GuardTestObserver()
        let person = Person()
        var lines: [Int] = []
        let captured = try captureStandardError {
            let controller = ObservationController(observer: observer, diagnosticSink: StandardErrorSink())
            assertNoMisuse {
                lines.append(#line + 1)
                controller.unobserve(person, keyPath: "age")
                lines.append(#line + 1)
                controller.unobserve(person)
            }
        }
        let file = "GuardCoreTests/GuardDiagnosticsTests.swift"
        let summary = "KVOGuard: removal of an unregistered observation ignored: observer GuardTestObserver"
        let thread = CurrentThread.description
        XCTAssertEqual(
            captured.split(separator: "\n", omittingEmptySubsequences: false),
            [
                "\(summary), object \(rendered(person)), key path \"age\" at \(file):\(lines[0]) on \(thread) "
                    + "(absorbed; no crash)",
                "\(summary), object \(rendered(person)) at \(file):\(lines[1]) on \(thread) (absorbed; no crash)",
                "",
            ],
            "exactly two lines, each ending in a newline")
    }

    /// Runs `body` with file descriptor 2 redirected into a pipe and returns what was written.
    private func captureStandardError(_ body: () -> Void) throws -> String {
        let pipe = Pipe()
        let saved = dup(STDERR_FILENO)
        XCTAssertGreaterThanOrEqual(saved, 0)
        guard dup2(pipe.fileHandleForWriting.fileDescriptor, STDERR_FILENO) >= 0 else {
            throw NSError(domain: "GuardDiagnosticsTests", code: 1)
        }
        body()
        dup2(saved, STDERR_FILENO)
        close(saved)
        try pipe.fileHandleForWriting.close()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self)
    }
}

/// A one-line description shows at most 512 scalars of a key path, and says how long the whole one is.
final class GuardDiagnosticKeyPathShorteningTests: XCTestCase {
    func testALongKeyPathIsCutInTheDescriptionButKeptWhole() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let keyPath = Array(repeating: "é", count: 1_000).joined(separator: ".")
        controller.observe(Person(), keyPath: keyPath) { _, _, _ in }
        let event = sink.events.first
        XCTAssertEqual(event?.keyPath, keyPath, "the event keeps the whole key path")
        let description = event?.description ?? ""
        XCTAssertTrue(
            description.contains(", key path \"" + String(keyPath.unicodeScalars.prefix(512)) + "…\" (2999 bytes in all)"),
            description)
        XCTAssertLessThan(description.utf8.count, 1_200, "the whole key path is 2,999 bytes")
    }

    func testAKeyPathOfExactly512ScalarsIsShownWhole() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let keyPath = String(repeating: "k", count: 512)
        controller.observe(Person(), keyPath: keyPath) { _, _, _ in }
        XCTAssertTrue(sink.events.first?.description.contains(", key path \"\(keyPath)\" at ") ?? false)
    }
}
