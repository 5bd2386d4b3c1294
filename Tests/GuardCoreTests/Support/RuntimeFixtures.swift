import Foundation
import GuardCore
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: Models

/// A model whose keys are all announced by hand (automatic notification is off for every key).
final class ManualModel: KVOObject, @unchecked Sendable {
    @Observed var level = 0
    @Observed var label = ""
    @Observed var songs: [String] = []

    override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        false
    }
}

// MARK: Observers

/// A light observer for high-volume tests: counts notifications and remembers contexts, per object and key path.
final class CountingObserver: KeyValueObserver, @unchecked Sendable {
    struct Slot: Hashable {
        let object: ObjectIdentifier
        let keyPath: String
    }

    private let lock = NSLock()
    private var counts: [Slot: Int] = [:]
    private var contexts: [Slot: [UnsafeMutableRawPointer?]] = [:]
    /// Whether to remember contexts (off for the busy phase of stress tests).
    var recordsContexts = false

    init() {}

    func observeValue(
        forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
    ) {
        let slot = Slot(object: ObjectIdentifier(object), keyPath: keyPath)
        lock.withLock {
            counts[slot, default: 0] += 1
            if recordsContexts { contexts[slot, default: []].append(context) }
        }
    }

    func count(of object: KVOObject, keyPath: String) -> Int {
        lock.withLock { counts[Slot(object: ObjectIdentifier(object), keyPath: keyPath)] ?? 0 }
    }

    func contexts(of object: KVOObject, keyPath: String) -> [UnsafeMutableRawPointer?] {
        lock.withLock { contexts[Slot(object: ObjectIdentifier(object), keyPath: keyPath)] ?? [] }
    }

    var total: Int { lock.withLock { counts.values.reduce(0, +) } }

    func reset() {
        lock.withLock {
            counts = [:]
            contexts = [:]
        }
    }
}

// MARK: Comparing notifications

/// `String(reflecting:)` of a value: `5`, `"Ann"`, `["x", "y"]`, `nil` for a boxed `Optional.none`.
func shown(_ value: Any) -> String {
    String(reflecting: value)
}

/// What a present-but-nil value renders as: the runtime boxes `Optional.none` so `nil` can mean "not requested".
let boxedNil = "nil"

/// One notification reduced to comparable facts; `old` and `new` are `shown(_:)` renderings, `nil` when absent.
struct Note: Equatable, CustomStringConvertible {
    var keyPath: String
    var kind: KeyValueChange.Kind
    var old: String?
    var new: String?
    var indexes: [Int]?
    var isPrior: Bool
    var context: UnsafeMutableRawPointer?

    init(
        _ keyPath: String, _ kind: KeyValueChange.Kind = .setting, old: String? = nil, new: String? = nil,
        indexes: [Int]? = nil, isPrior: Bool = false, context: UnsafeMutableRawPointer? = nil
    ) {
        self.keyPath = keyPath
        self.kind = kind
        self.old = old
        self.new = new
        self.indexes = indexes
        self.isPrior = isPrior
        self.context = context
    }

    /// A prior notification: no new value, ever.
    static func prior(
        _ keyPath: String, _ kind: KeyValueChange.Kind = .setting, old: String? = nil, indexes: [Int]? = nil,
        context: UnsafeMutableRawPointer? = nil
    ) -> Note {
        Note(keyPath, kind, old: old, new: nil, indexes: indexes, isPrior: true, context: context)
    }

    init(_ received: Received) {
        let change = received.change
        self.init(
            received.keyPath, change.kind, old: change.oldValue.map(shown), new: change.newValue.map(shown),
            indexes: change.indexes.map(Array.init), isPrior: change.isPrior, context: received.context)
    }

    var description: String {
        var parts = ["\(keyPath)", "\(kind)"]
        if isPrior { parts.append("prior") }
        if let old { parts.append("old: \(old)") }
        if let new { parts.append("new: \(new)") }
        if let indexes { parts.append("indexes: \(indexes)") }
        if let context { parts.append("context: \(context)") }
        return "Note(" + parts.joined(separator: ", ") + ")"
    }
}

extension Recorder {
    /// Every notification so far as ``Note``s, oldest first.
    var notes: [Note] { received.map(Note.init) }
}

/// Asserts that the key path in each received notification agrees with the change it carries, and that all of
/// them came from `object`.
func assertAllFrom(
    _ object: KVOObject, _ recorder: Recorder, file: StaticString = #filePath, line: UInt = #line
) {
    for received in recorder.received {
        XCTAssertEqual(received.object, ObjectIdentifier(object), "notification from another object", file: file, line: line)
        XCTAssertEqual(received.change.keyPath, received.keyPath, "change.keyPath differs", file: file, line: line)
    }
}

// MARK: Observing around a change

/// Adds `observer` for `keyPath` of `object`, runs `body`, then removes that registration again (by key path, without
/// a context), and asserts that none of it was a misuse.
func whileObserving(
    _ object: KVOObject, _ keyPath: String, with observer: any KeyValueObserver, options: KeyValueObservingOptions = [],
    context: UnsafeMutableRawPointer? = nil, file: StaticString = #filePath, line: UInt = #line, _ body: () -> Void
) {
    assertNoMisuse(file: file, line: line) {
        object.addObserver(observer, forKeyPath: keyPath, options: options, context: context)
        body()
        object.removeObserver(observer, forKeyPath: keyPath)
    }
}

// MARK: Expected misuses, spelled out with Foundation's wording

/// `0x` and sixteen hexadecimal digits, as GuardCore renders an address.
func renderedAddress(_ address: UInt) -> String {
    let digits = String(address, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits
}

/// The address of `object` as an integer.
func address(of object: AnyObject) -> UInt {
    UInt(bitPattern: ObjectIdentifier(object))
}

/// The observation-info line Foundation prints for one registration.
func observanceLine(
    observerAddress: UInt, observerType: String, keyPath: String, options: String, context: String = "0x0"
) -> String {
    "<Observance: Observer: \(renderedAddress(observerAddress)) (\(observerType)), Key path: \(keyPath), "
        + "Options: \(options) Context: \(context)>"
}

enum Expected {
    static func notRegistered(
        observer: AnyObject, object: AnyObject, keyPath: String, thread: String = "main"
    ) -> KVOMisuse {
        KVOMisuse(
            kind: .notRegistered, exceptionName: "NSRangeException",
            message: "Cannot remove an observer \(rendered(observer)) for the key path \"\(keyPath)\" from "
                + "\(rendered(object)) because it is not registered as an observer.",
            keyPath: keyPath, object: rendered(object), observer: rendered(observer), thread: thread)
    }

    static func unpairedDidChange(object: AnyObject, key: String, thread: String = "main") -> KVOMisuse {
        KVOMisuse(
            kind: .unpairedDidChange, exceptionName: "NSInternalInconsistencyException",
            message: "Cannot update for the key path \"\(key)\" of \(rendered(object)): didChangeValue(forKey:) was "
                + "called without a matching willChangeValue(forKey:) on this thread, most likely because the value "
                + "for the key \"\(key)\" has changed without an appropriate KVO notification being sent.",
            keyPath: key, object: rendered(object), observer: nil, thread: thread)
    }

    static func observerDeallocated(
        observerType: String, observerAddress: UInt, object: AnyObject, keyPath: String, thread: String = "main"
    ) -> KVOMisuse {
        KVOMisuse(
            kind: .observerDeallocated, exceptionName: "EXC_BAD_ACCESS",
            message: "*** -[\(observerType) observeValueForKeyPath:ofObject:change:context:]: message sent to "
                + "deallocated instance \(renderedAddress(observerAddress)) (key path \"\(keyPath)\" of "
                + "\(rendered(object)))",
            keyPath: keyPath, object: rendered(object),
            observer: "<\(observerType): \(renderedAddress(observerAddress))>", thread: thread)
    }

    static func deallocatedWhileObserved(
        objectType: String, objectAddress: UInt, observanceLines: [String], keyPaths: [String],
        firstObserver: String, thread: String = "main"
    ) -> KVOMisuse {
        KVOMisuse(
            kind: .deallocatedWhileObserved, exceptionName: "NSInternalInconsistencyException",
            message: "An instance \(renderedAddress(objectAddress)) of class \(objectType) was deallocated while key "
                + "value observers were still registered with it. Current observation info: (\n"
                + observanceLines.joined(separator: "\n") + "\n)",
            keyPath: keyPaths.joined(separator: ", "), object: "<\(objectType): \(renderedAddress(objectAddress))>",
            observer: firstObserver, thread: thread)
    }

    /// A Swift key path without a key-value name, shown as `description`.
    static func unnamedKeyPath(object: AnyObject, description: String, thread: String = "main") -> KVOMisuse {
        KVOMisuse(
            kind: .unknownKey, exceptionName: "NSUnknownKeyException",
            message: "[\(rendered(object)) valueForUndefinedKey:]: this class is not key value coding-compliant for "
                + "the key \(description). (A Swift key path has a key-value name when each component is an "
                + "@Observed property or a stored property of a final class, optional chains and force unwraps "
                + "included; a computed property, a subscript, a tuple element or \\.self has none. Observe the string "
                + "key path of what it reads, or make the property @Observed.)",
            keyPath: description, object: rendered(object), observer: nil, thread: thread)
    }

    static func unknownKey(object: AnyObject, key: String, thread: String = "main") -> KVOMisuse {
        KVOMisuse(
            kind: .unknownKey, exceptionName: "NSUnknownKeyException",
            message: "[\(rendered(object)) valueForUndefinedKey:]: this class is not key value coding-compliant for "
                + "the key \(key).",
            keyPath: key, object: rendered(object), observer: nil, thread: thread)
    }
}

// MARK: Reproducible choices

/// A small deterministic generator (SplitMix64), one per worker in the concurrency tests, so a run's choices are
/// reproducible per worker.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

// MARK: Threads and standard error

/// Runs `body` on a new dispatch queue, waits for it, and returns its result and the thread it ran on.
func onAnotherThread<Result>(_ body: @escaping @Sendable () -> Result) -> (result: Result, thread: Thread) {
    let box = TestBox<(Result, Thread)?>(nil)
    let queue = DispatchQueue(label: "kvoguard.tests.other-thread")
    let done = DispatchSemaphore(value: 0)
    // `async`, not `sync`: Dispatch runs a `sync` block on the calling thread.
    queue.async {
        let value = body()
        box.set((value, Thread.current))
        done.signal()
    }
    done.wait()
    return box.get()!
}

/// A tiny lock-protected box for handing values out of Dispatch closures.
final class TestBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func mutate<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&value) } }
}

/// Runs `body` with file descriptor 2 redirected to a temporary file and returns what was written to it.
func capturingStandardError(_ body: () -> Void) -> String {
    let path = NSTemporaryDirectory() + "kvoguard-stderr-\(UUID().uuidString).txt"
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    defer { try? FileManager.default.removeItem(atPath: path) }
    guard let capture = FileHandle(forWritingAtPath: path) else {
        XCTFail("cannot open \(path)")
        return ""
    }
    fflush(nil)
    let saved = dup(STDERR_FILENO)
    dup2(capture.fileDescriptor, STDERR_FILENO)
    body()
    fflush(nil)
    dup2(saved, STDERR_FILENO)
    close(saved)
    try? capture.close()
    return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
}

// MARK: Nameless key paths

extension Person {
    /// A read-only computed property that reads exactly one `@Observed` property: it has no key of its own.
    var ageAlias: Int { age }
}

extension Student {
    /// The same on a subclass, reading an inherited `@Observed` property.
    var idAlias: Int { id }
}
