import Foundation
import GuardCore
import XCTest

/// A `lazy var` is a stored property: key-value coding reads it by name once it is initialized. Before its first read
/// its initializer has not run and reflection cannot run it, so reading it is the misuse `unknownKey` with a message
/// that says why, never a silent `nil`.
final class LazyPropertyKeyValueCodingTests: XCTestCase {
    final class Report: KVOObject, @unchecked Sendable {
        @Observed var pages = 0
        lazy var total = 42
        lazy var note: String? = nil
        lazy var title: String? = "draft"
        private(set) var initializerRuns = 0
        lazy var expensive: Int = {
            initializerRuns += 1
            return 7
        }()
    }

    func testAnInitializedLazyPropertyIsReadByName() {
        let report = Report()
        _ = report.total
        _ = report.note
        _ = report.title
        assertNoMisuse {
            XCTAssertEqual(report.value(forKey: "total") as? Int, 42)
            XCTAssertNil(report.value(forKey: "note"), "initialized to nil")
            XCTAssertEqual(report.value(forKey: "title") as? String, "draft")
        }
        report.total = 5
        report.title = nil
        assertNoMisuse {
            XCTAssertEqual(report.value(forKey: "total") as? Int, 5)
            XCTAssertNil(report.value(forKey: "title"))
            XCTAssertEqual(report.value(forKeyPath: "total") as? Int, 5)
        }
    }

    func testALazyPropertyNeverReadIsRefusedWithAMessageAndNotInitialized() {
        let report = Report()
        var value: Any?
        let misuses = recordingMisuse { value = report.value(forKey: "expensive") }
        XCTAssertNil(value)
        XCTAssertEqual(misuses.map(\.kind), [.unknownKey])
        XCTAssertTrue(
            misuses.first?.message.contains("expensive is a lazy property that has not been read yet") ?? false,
            misuses.first?.message ?? "no misuse")
        XCTAssertEqual(report.initializerRuns, 0)
        XCTAssertEqual(report.expensive, 7)
        assertNoMisuse { XCTAssertEqual(report.value(forKey: "expensive") as? Int, 7) }
        XCTAssertEqual(report.initializerRuns, 1)
    }

    func testObservingALazyPropertyWithManualNotifications() {
        let report = Report()
        let observer = Recorder()
        assertNoMisuse {
            // Registering does not read the value; the first read below initializes it.
            report.addObserver(observer, forKeyPath: "total", options: [.old, .new])
            _ = report.total
            report.willChangeValue(forKey: "total")
            report.total = 43
            report.didChangeValue(forKey: "total")
            report.removeObserver(observer, forKeyPath: "total")
        }
        XCTAssertEqual(observer.notes, [Note("total", old: shown(42), new: shown(43))])
    }

    func testTheGuardReadsAnInitializedLazyPropertyForInitial() {
        let report = Report()
        _ = report.total
        let owner = Person()
        let values = LockedBox<[Int]>([])
        let controller = ObservationController(observer: owner, diagnosticSink: CountingSink())
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(report, keyPath: "total", options: [.initial, .new]) { _, _, change in
                    values.mutate { $0.append(change.newValue(as: Int.self) ?? -1) }
                }, .registered)
            _ = controller.unobserveAll()
        }
        XCTAssertEqual(values.value, [42])
    }
}
