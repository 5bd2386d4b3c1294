import Foundation
@testable import GuardCore
import XCTest

/// Key discovery through the Swift runtime's reflection entry points: linked where the platform always has them (so
/// a statically linked program has keys too), and never silently keyless where the runtime lacks them.
final class StoredFieldReflectionTests: XCTestCase {
    override func setUp() {
        super.setUp()
        RuntimeMonitor.resetMisuseRecords()
    }

    override func tearDown() {
        RuntimeMonitor.resetMisuseRecords()
        super.tearDown()
    }

    func testThisProcessReadsStoredPropertiesThroughTheEntryPointsInForce() throws {
        XCTAssertTrue(RuntimeMonitor.canReadStoredProperties)
        let entryPoints = try XCTUnwrap(StoredFieldReflection.entryPoints)
        let fields = StoredFieldReflection.fields(of: ReflectedShape.self, using: entryPoints)
        XCTAssertEqual(fields.map(\.name).filter { !$0.hasPrefix("_") && !$0.hasPrefix("$") }.suffix(3),
                       ["width", "label", "parent"])
        XCTAssertEqual(fields.first { $0.name == "parent" }?.isStrong, false, "a weak field is not strong")
        XCTAssertEqual(fields.first { $0.name == "label" }?.isStrong, true)
        XCTAssertTrue(fields.first { $0.name == "width" }?.type == Int.self)
        let shape = ReflectedShape()
        assertNoMisuse {
            XCTAssertEqual(shape.value(forKey: "width") as? Int, 3)
            XCTAssertEqual(shape.value(forKey: "label") as? String, "box")
        }
    }

    #if !canImport(Darwin)
    /// Linux links the entry points by name rather than looking them up: a runtime linked statically exports no
    /// symbol `dlsym` could find. In this (dynamically linked) test binary both ways exist and must agree.
    func testLinkedEntryPointsAreTheOnesInForceAndAgreeWithTheExportedOnes() throws {
        let exported = try XCTUnwrap(
            StoredFieldReflection.lookUp(with: StoredFieldReflection.dynamicSymbol(named:)),
            "a dynamically linked runtime exports its reflection entry points")
        let summary = { (fields: [StoredFieldReflection.Field]) in
            fields.map { "\($0.name)@\($0.offset):\($0.type):\($0.isStrong)" }
        }
        let viaLinked = summary(StoredFieldReflection.fields(of: ReflectedShape.self, using: StoredFieldReflection.linked))
        XCTAssertEqual(viaLinked, summary(StoredFieldReflection.fields(of: ReflectedShape.self, using: exported)))
        XCTAssertEqual(viaLinked, summary(StoredFieldReflection.fields(of: ReflectedShape.self)))
        XCTAssertFalse(viaLinked.isEmpty)
    }
    #endif

    func testAMissingEntryPointMeansNoReflection() {
        XCTAssertNil(StoredFieldReflection.lookUp(with: { _ in nil }))
        XCTAssertNil(
            StoredFieldReflection.lookUp(with: { name in
                name == "swift_reflectionMirror_recursiveChildOffset" ? nil : StoredFieldReflection.dynamicSymbol(named: name)
            }))
    }

    /// Without reflection (an Apple system older than iOS 13.4 / macOS 10.15.4) no stored property is a key. That is
    /// said once on standard error, and each key the object cannot answer is `reflectionUnavailable`, naming the
    /// cause; never `unknownKey` on every key, which would blame the keys.
    func testWithoutReflectionOneLineIsWrittenAndNoKeyIsBlamedAsUnknown() {
        let shape = UnreflectedShape()
        let recorder = Recorder()
        var misuses: [KVOMisuse] = []
        var canRead = true
        let log = capturingStandardError {
            ReflectionUnavailableNotice.withReflectionUnavailable {
                canRead = RuntimeMonitor.canReadStoredProperties
                misuses = recordingMisuse {
                    XCTAssertNil(shape.value(forKey: "width"))
                    XCTAssertNil(shape.value(forKey: "label"))
                    shape.addObserver(recorder, forKeyPath: "width", options: [.initial, .new])
                    XCTAssertNil(shape.value(forKeyPath: "label.count"))
                }
            }
        }
        XCTAssertFalse(canRead)
        XCTAssertEqual(misuses.map(\.kind), Array(repeating: .reflectionUnavailable, count: 4))
        XCTAssertEqual(RuntimeMonitor.misuseCount(of: .unknownKey), 0)
        XCTAssertEqual(misuses.map(\.keyPath), ["width", "label", "width", "label"])
        for misuse in misuses {
            XCTAssertEqual(misuse.exceptionName, "NSUnknownKeyException")
            XCTAssertTrue(misuse.message.contains("offers no reflection"), misuse.message)
            XCTAssertTrue(misuse.message.contains("Override value(forKey:)"), misuse.message)
        }
        XCTAssertEqual(log, ReflectionUnavailableNotice.line + "\n", "one line, however many keys were asked for")
        XCTAssertTrue(log.contains("swift_reflectionMirror_recursiveCount"))
        XCTAssertEqual(shape.observationCount, 0, "nothing was registered")
    }

    /// Through the guard the registration is refused as usual (an invalid argument, no misuse), and the one line
    /// still says why.
    func testWithoutReflectionTheGuardRefusesTheKeyAndTheLineSaysWhy() {
        let shape = UnreflectedGuardedShape()
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        var result: ObserveResult?
        let log = capturingStandardError {
            ReflectionUnavailableNotice.withReflectionUnavailable {
                assertNoMisuse {
                    result = controller.observe(shape, keyPath: "width") { _, _, _ in }
                }
            }
        }
        XCTAssertEqual(result, .invalid(.unobservableKeyPath))
        XCTAssertEqual(sink.total, 1)
        XCTAssertEqual(log, ReflectionUnavailableNotice.line + "\n")
    }
}

/// Reflected normally.
private final class ReflectedShape: KVOObject {
    var width = 3
    var label = "box"
    weak var parent: ReflectedShape?
}

/// Used only without reflection: its key table is built (and cached) empty.
private final class UnreflectedShape: KVOObject {
    var width = 3
    var label = "box"
}

/// Used only without reflection, through the guard.
private final class UnreflectedGuardedShape: KVOObject {
    var width = 3
}
