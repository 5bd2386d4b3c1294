@_spi(Reflection) import Swift
import Foundation
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

    func testObservanceKeepsItsAtomicWordsFirst() {
        let observer = LayoutProbeObserver()
        let info = KeyPathInfo(keyPath: "k", triggerKeys: ["k"])
        let observance = ObserverObservance(observer: observer, info: info, options: [], context: nil)
        assertLeadingWords(
            ["activeWord", "rewireGenerationWord", "subclassWord"], of: Observance.self, instance: observance)
    }

    /// A guard registration is an observance and keeps its state in the observance's subclass word (word 2).
    func testGuardRegistrationKeepsItsStateInTheObservancesSubclassWord() {
        let object = KVOObject()
        let core = ControllerCore(observer: object, retainsObjects: true, backend: KVORuntimeBackend(), sink: nil)
        let info = KeyPathInfo(keyPath: "k", triggerKeys: ["k"])
        let registration = withExtendedLifetime(info) {
            HandlerRegistration(
                GuardRegistration.Setup(
                    object: object, info: info, options: [], context: nil, retainsObject: true,
                    callSite: .init(file: #fileID, line: #line), core: core)
            ) { (_: KVOObject, _: KVOObject, _: KeyValueChange) in }
        }
        assertLeadingWords(
            ["activeWord", "rewireGenerationWord", "subclassWord"], of: Observance.self, instance: registration)
        registration.state.set(.cancelled)
        XCTAssertEqual(InlineAtomicWords.word(2, of: registration).load(ordering: .relaxed), 2)
        XCTAssertEqual(InlineAtomicWords.word(0, of: registration).load(ordering: .relaxed), 1, "still active")
    }

    /// The table's mutex is reached by address right after its atomic words.
    func testObservationTableKeepsItsAtomicWordsAndMutexFirst() {
        let table = ObservationTable()
        assertLeadingWords(["insertionsWord", "objectGoneWord"], of: ObservationTable.self, instance: table)
        let header = _getUnsafePointerToStoredProperties(table) - UnsafeMutableRawPointer(
            Unmanaged.passUnretained(table).toOpaque())
        var mutexOffset: Int?
        _ = _forEachField(of: ObservationTable.self, options: _EachFieldOptions(rawValue: 1 << 0)) {
            name, offset, fieldType, _ in
            if String(cString: name) == "mutexStorage" {
                mutexOffset = offset
                XCTAssertTrue(fieldType == pthread_mutex_t.self, "mutexStorage is not a pthread_mutex_t")
            }
            return true
        }
        XCTAssertEqual(
            mutexOffset, header + 2 * MemoryLayout<gca_word>.stride, "mutexStorage must follow the two words")
        XCTAssertFalse(table.objectIsDeinitialized)
        _ = table.removeAll()
        XCTAssertTrue(table.objectIsDeinitialized)
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
