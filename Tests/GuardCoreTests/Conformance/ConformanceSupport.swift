import Foundation
import GuardCore
import XCTest

/// A change value in a form every backend can be compared in: Foundation hands over `NSNumber`, `NSString`,
/// `NSArray` and `NSNull` where GuardCore's runtime hands over Swift values and boxed `Optional.none`.
enum ConformanceValue: Equatable, CustomStringConvertible {
    case absent
    case nilValue
    case int(Int)
    case string(String)
    case strings([String])
    /// A set, as its elements' descriptions in order.
    case set([String])
    case other(String)

    static func of(_ value: Any?) -> ConformanceValue {
        guard let value else { return .absent }
        if value is NSNull { return .nilValue }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let child = mirror.children.first else { return .nilValue }
            return of(child.value)
        }
        if let number = value as? Int { return .int(number) }
        if let text = value as? String { return .string(text) }
        if let texts = value as? [String] { return .strings(texts) }
        if let set = value as? Set<AnyHashable> { return .set(set.map { "\($0.base)" }.sorted()) }
        return .other(String(describing: value))
    }

    var description: String {
        switch self {
        case .absent: return "absent"
        case .nilValue: return "nil"
        case .int(let value): return "\(value)"
        case .string(let value): return "\"\(value)\""
        case .strings(let values): return "\(values)"
        case .set(let values): return "set\(values)"
        case .other(let text): return "other(\(text))"
        }
    }
}

/// One handler call as the conformance tests compare it.
struct ConformanceCall: Equatable, CustomStringConvertible {
    var keyPath: String
    var kind: KeyValueChange.Kind = .setting
    var old: ConformanceValue = .absent
    var new: ConformanceValue = .absent
    var isPrior = false
    var indexes: [Int]? = nil

    var description: String {
        "\(keyPath) \(kind)\(isPrior ? " prior" : "") old=\(old) new=\(new)" + (indexes.map { " indexes=\($0)" } ?? "")
    }
}

/// Records handler calls, with the thread and the objects each saw, from any thread.
final class ConformanceLog: @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [ConformanceCall] = []
    private var callThreads: [Thread] = []
    private var objects: [ObjectIdentifier] = []

    func record(_ object: AnyObject, _ change: KeyValueChange) {
        let call = ConformanceCall(
            keyPath: change.keyPath, kind: change.kind, old: .of(change.oldValue), new: .of(change.newValue),
            isPrior: change.isPrior, indexes: change.indexes.map { Array($0) })
        let thread = Thread.current
        lock.withLock {
            calls.append(call)
            callThreads.append(thread)
            objects.append(ObjectIdentifier(object))
        }
    }

    var all: [ConformanceCall] { lock.withLock { calls } }
    var threads: [Thread] { lock.withLock { callThreads } }
    var objectIDs: [ObjectIdentifier] { lock.withLock { objects } }
    var count: Int { lock.withLock { calls.count } }
}

/// The observer the conformance tests hand to controllers; it can own its controller (the FBKVOController shape).
final class ConformanceObserver: @unchecked Sendable {
    private let lock = NSLock()
    private var storedController: ObservationController<ConformanceObserver>?

    var controller: ObservationController<ConformanceObserver>? {
        get { lock.withLock { storedController } }
        set {
            let old = lock.withLock { () -> ObservationController<ConformanceObserver>? in
                defer { storedController = newValue }
                return storedController
            }
            withExtendedLifetime(old) {}
        }
    }
}

/// Releases a group of threads at once.
final class ConformanceBarrier: @unchecked Sendable {
    private let arrived = DispatchSemaphore(value: 0)
    private let open = DispatchSemaphore(value: 0)
    private let parties: Int

    init(parties: Int) {
        self.parties = parties
    }

    /// Called by each party; returns when all have arrived and ``release()`` was called.
    func arriveAndWait() {
        arrived.signal()
        open.wait()
    }

    /// Waits for every party, then lets them all go.
    func release() {
        for _ in 0..<parties { arrived.wait() }
        for _ in 0..<parties { open.signal() }
    }
}

/// A weak reference that can cross threads.
final class ConformanceWeak<Object: AnyObject>: @unchecked Sendable {
    private let lock = NSLock()
    private weak var stored: Object?

    init(_ object: Object?) { stored = object }

    var object: Object? { lock.withLock { stored } }
}

/// Runs `body` inside an autorelease pool on Apple platforms, so objects Foundation autoreleased while observing are
/// released when it returns (there is no such pool, and nothing to drain, elsewhere).
func drainingAutoreleasedObjects<Result>(_ body: () throws -> Result) rethrows -> Result {
    #if canImport(ObjectiveC)
    return try autoreleasepool(invoking: body)
    #else
    return try body()
    #endif
}

// MARK: - Small shared state

/// A value set from any thread.
final class ConformanceValueBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    func set(_ value: Value?) { lock.withLock { stored = value } }
    var value: Value? { lock.withLock { stored } }
    func mutate(_ body: (inout Value?) -> Void) { lock.withLock { body(&stored) } }
}

extension ConformanceValueBox where Value == Int {
    func increment() { mutate { $0 = ($0 ?? 0) + 1 } }
}

/// A flag set once from any thread.
final class ConformanceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = false

    func set() { lock.withLock { stored = true } }
    var isSet: Bool { lock.withLock { stored } }
}

/// SplitMix64, so each worker's choices are reproducible.
struct SplitMixForTests {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
