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
        let core = ControllerCore(observer: object, retainsObservedObjects: true, backend: KVORuntimeBackend(), sink: nil)
        let info = KeyPathInfo(keyPath: "k", triggerKeys: ["k"])
        let registration = withExtendedLifetime(info) {
            HandlerRegistration(
                GuardRegistration.Setup(
                    object: object, info: info, options: [], context: nil, retainsObservedObject: true,
                    callSite: .init(file: #fileID, line: #line), core: core)
            ) { (_: KVOObject, _: KVOObject, _: KeyValueChange) in }
        }
        assertLeadingWords(
            ["activeWord", "rewireGenerationWord", "subclassWord"], of: Observance.self, instance: registration)
        registration.state.set(.cancelled)
        XCTAssertEqual(InlineAtomicWords.word(2, of: registration).load(ordering: .relaxed), 2)
        XCTAssertEqual(InlineAtomicWords.word(0, of: registration).load(ordering: .relaxed), 1, "still active")
    }

    /// The table's lock is reached by address right after its atomic words.
    func testObservationTableKeepsItsAtomicWordsAndLockFirst() {
        let table = ObservationTable()
        assertLeadingWords(["insertionsWord", "objectGoneWord"], of: ObservationTable.self, instance: table)
        assertInlineLock(of: ObservationTable.self, instance: table, afterWords: 2)
        XCTAssertFalse(table.objectIsDeinitialized)
        _ = table.removeAll()
        XCTAssertTrue(table.objectIsDeinitialized)
    }

    /// Every object that keeps a lock inline keeps it where `LockOperations.primitive(of:afterWords:)` looks.
    func testObjectsWithAnInlineLockKeepItFirst() {
        let lock = Lock()
        assertInlineLock(of: Lock.self, instance: lock)
        let box = Protected<[String]>(["value"])
        assertInlineLock(of: Protected<[String]>.self, instance: box)
        XCTAssertEqual(box.exchange(["other"]), ["value"], "the value after the lock is intact")
        let observer = KVOObject()
        let core = ControllerCore(observer: observer, retainsObservedObjects: true, backend: KVORuntimeBackend(), sink: nil)
        assertInlineLock(of: ControllerCore.self, instance: core)
        let writer = LossyLineWriter(descriptor: -1)
        assertInlineLock(of: LossyLineWriter.self, instance: writer)
    }

    /// `type`'s stored property `lockPrimitive` is a `LockPrimitive` at the address `LockOperations` computes.
    private func assertInlineLock<T: AnyObject>(
        of type: T.Type, instance: T, afterWords words: Int = 0, file: StaticString = #filePath, line: UInt = #line
    ) {
        let header = _getUnsafePointerToStoredProperties(instance) - UnsafeMutableRawPointer(
            Unmanaged.passUnretained(instance).toOpaque())
        var offset: Int?
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1 << 0)) { name, fieldOffset, fieldType, _ in
            if String(cString: name) == "lockPrimitive" {
                offset = fieldOffset
                XCTAssertTrue(fieldType == LockPrimitive.self, "lockPrimitive is not a LockPrimitive", file: file, line: line)
            }
            return true
        }
        XCTAssertEqual(
            offset, header + words * MemoryLayout<gca_word>.stride, "\(type)'s lockPrimitive is misplaced",
            file: file, line: line)
        let computed = UnsafeMutableRawPointer(LockOperations.primitive(of: instance, afterWords: words))
        XCTAssertEqual(
            computed - UnsafeMutableRawPointer(Unmanaged.passUnretained(instance).toOpaque()), offset, file: file,
            line: line)
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
