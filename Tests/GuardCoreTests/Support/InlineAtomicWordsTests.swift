@_spi(Reflection) import Swift
import GuardCoreAtomics
import XCTest

@testable import GuardCore

/// `InlineAtomicWords` reaches atomic words by their position among an instance's first stored properties. These
/// tests fail if a class that relies on it stops declaring those words first (a refactoring that reorders stored
/// properties would otherwise make atomics read and write other fields).
final class InlineAtomicWordsTests: XCTestCase {
    func testKVOObjectKeepsItsTwoAtomicWordsFirst() {
        assertLeadingWords(["announcedKeysWord", "tableWord"], of: KVOObject.self, instance: KVOObject())
    }

    func testObservanceKeepsItsAtomicWordFirst() {
        let observer = LayoutProbeObserver()
        let observance = Observance(
            observer: observer, keyPath: "k", options: [], context: nil, dropsWithObject: false, isGuarded: false,
            joinsChangesUnderWay: false)
        assertLeadingWords(["activeWord", "rewireGenerationWord"], of: Observance.self, instance: observance)
    }

    func testGuardedObservationKeepsItsAtomicWordsFirst() {
        let object = KVOObject()
        let core = ControllerCore(observer: object, retainsObjects: true, backend: KVORuntimeBackend(), sink: nil)
        let registration = GuardRegistration(
            object: object, keyPath: "k", options: [], context: nil, retainsObject: true, handler: { _, _, _ in },
            callSite: .init(file: #fileID, line: #line), core: core)
        assertLeadingWords(["stateWord", "reportedObserverGoneWord"], of: GuardRegistration.self, instance: registration)
    }

    func testObservationTableKeepsItsAtomicWordFirst() {
        assertLeadingWords(["insertionsWord"], of: ObservationTable.self, instance: ObservationTable())
    }

    func testAtomicCellKeepsItsWordFirst() {
        assertLeadingWords(["storage"], of: AtomicCell.self, instance: AtomicCell())
    }

    func testAtomicCellOperations() {
        let cell = AtomicCell(int: -2)
        XCTAssertEqual(cell.word.loadInt(ordering: .relaxed), -2)
        XCTAssertEqual(cell.word.add(5, ordering: .relaxed), 3)
        XCTAssertEqual(cell.word.add(-4, ordering: .acquiringAndReleasing), -1)
        XCTAssertEqual(cell.word.exchange(7), UInt64(bitPattern: -1))
        XCTAssertEqual(cell.word.compareExchange(expected: 6, desired: 9).exchanged, false)
        XCTAssertEqual(cell.word.compareExchange(expected: 6, desired: 9).original, 7)
        XCTAssertEqual(cell.word.compareExchange(expected: 7, desired: 9).exchanged, true)
        XCTAssertEqual(cell.word.load(ordering: .acquiring), 9)
    }

    private func assertLeadingWords(
        _ names: [String], of type: AnyClass, instance: AnyObject, file: StaticString = #filePath, line: UInt = #line
    ) {
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(instance).toOpaque())
        let header = _getUnsafePointerToStoredProperties(instance) - base
        var offsets: [String: Int] = [:]
        // `_forEachField` is in the stdlib since Swift 5.2 (macOS 10.15.4 / iOS 13.4); the package's floor is lower.
        guard #available(macOS 10.15.4, iOS 13.4, tvOS 13.4, watchOS 6.2, *) else {
            XCTFail("reading field offsets needs macOS 10.15.4 / iOS 13.4 or later", file: file, line: line)
            return
        }
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1 << 0)) { name, offset, fieldType, _ in
            offsets[String(cString: name)] = offset
            if names.contains(String(cString: name)) {
                XCTAssertTrue(fieldType == gca_word.self, "\(String(cString: name)) is not a gca_word", file: file, line: line)
            }
            return true
        }
        for (index, name) in names.enumerated() {
            XCTAssertEqual(
                offsets[name], header + index * MemoryLayout<gca_word>.stride,
                "\(type).\(name) must be stored property number \(index)", file: file, line: line)
        }
    }
}

private final class LayoutProbeObserver: KeyValueObserver {
    func observeValue(
        forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
    ) {}
}
