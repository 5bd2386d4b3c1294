import Foundation
import GuardCore
import XCTest

// Fixtures for the ObservationController (guard) tests. Everything here is prefixed or guard-specific so it cannot
// collide with what other suites add to Support/.

// MARK: - Values as a handler saw them

/// A change value in a comparable form: absent (not requested), present-but-nil, a hashable value, or an array.
enum GuardValue: Equatable, CustomStringConvertible, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral,
    ExpressibleByArrayLiteral
{
    case absent
    case nilValue
    case value(AnyHashable)
    case array([GuardValue])
    case unhashable(String)

    init(integerLiteral value: Int) { self = .value(AnyHashable(value)) }
    init(stringLiteral value: String) { self = .value(AnyHashable(value)) }
    init(arrayLiteral elements: GuardValue...) { self = .array(elements) }

    /// Converts a `KeyValueChange` value: `nil` is "absent", a boxed `Optional.none` is "present but nil".
    static func of(_ value: Any?) -> GuardValue {
        guard let value else { return .absent }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let child = mirror.children.first else { return .nilValue }
            return of(child.value)
        }
        if mirror.displayStyle == .collection, let array = value as? [Any] {
            return .array(array.map { of($0) })
        }
        if let hashable = value as? AnyHashable { return .value(hashable) }
        return .unhashable(String(describing: value))
    }

    var description: String {
        switch self {
        case .absent: return "absent"
        case .nilValue: return "nil"
        case .value(let value): return "\(value.base)"
        case .array(let values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .unhashable(let text): return "unhashable(\(text))"
        }
    }
}

// MARK: - Handler calls

/// One handler call, with every property the tests check.
struct HandlerCall: Equatable, CustomStringConvertible {
    var tag: String
    var observer: ObjectIdentifier
    var object: ObjectIdentifier
    var kind: KeyValueChange.Kind
    var keyPath: String
    var old: GuardValue
    var new: GuardValue
    var isPrior: Bool
    var indexes: [Int]?

    var description: String {
        var text = "\(tag): \(kind) \(keyPath)"
        if isPrior { text += " prior" }
        text += " old=\(old) new=\(new)"
        if let indexes { text += " indexes=\(indexes)" }
        return text + " observer=\(observer.hashValue) object=\(object.hashValue)"
    }
}

/// The call a test expects.
func expectedCall(
    _ tag: String, observer: AnyObject, object: AnyObject, keyPath: String, kind: KeyValueChange.Kind = .setting,
    old: GuardValue = .absent, new: GuardValue = .absent, prior: Bool = false, indexes: [Int]? = nil
) -> HandlerCall {
    HandlerCall(
        tag: tag, observer: ObjectIdentifier(observer), object: ObjectIdentifier(object), kind: kind,
        keyPath: keyPath, old: old, new: new, isPrior: prior, indexes: indexes)
}

/// Records handler calls (and the thread each ran on) from any thread.
final class HandlerLog: @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [HandlerCall] = []
    private var callThreads: [Thread] = []

    func record(_ tag: String, _ observer: AnyObject, _ object: AnyObject, _ change: KeyValueChange) {
        let call = HandlerCall(
            tag: tag, observer: ObjectIdentifier(observer), object: ObjectIdentifier(object), kind: change.kind,
            keyPath: change.keyPath, old: GuardValue.of(change.oldValue), new: GuardValue.of(change.newValue),
            isPrior: change.isPrior, indexes: change.indexes.map { Array($0) })
        let thread = Thread.current
        lock.withLock {
            calls.append(call)
            callThreads.append(thread)
        }
    }

    var all: [HandlerCall] { lock.withLock { calls } }
    var threads: [Thread] { lock.withLock { callThreads } }
    var count: Int { lock.withLock { calls.count } }

    /// A handler that does nothing but record each call under `tag`.
    func recording<Observer: AnyObject, Object: AnyObject>(
        _ tag: String
    ) -> @Sendable (Observer, Object, KeyValueChange) -> Void {
        { observer, object, change in self.record(tag, observer, object, change) }
    }
}

// MARK: - Controllers

/// What most guard tests start from: a controller for `observer` and the counting sink it reports its diagnostics to.
///
/// The controller holds its observer weakly: the test keeps `observer` alive in a local of its own.
func makeController<Observer: AnyObject>(
    for observer: Observer, retainsObservedObjects: Bool = true
) -> (CountingSink, ObservationController<Observer>) {
    let sink = CountingSink()
    let controller = ObservationController(
        observer: observer, retainsObservedObjects: retainsObservedObjects, diagnosticSink: sink)
    return (sink, controller)
}

/// ``makeController(for:retainsObservedObjects:)`` for a fresh observer that owns the controller (the FBKVOController
/// shape), so a handler can reach the controller through the observer it receives. Tests drop the observer's reference
/// with `observer.controller = nil` when done.
func makeOwnedController() -> (GuardTestObserver, CountingSink, ObservationController<GuardTestObserver>) {
    let observer = GuardTestObserver()
    let (sink, controller) = makeController(for: observer)
    observer.controller = controller
    return (observer, sink, controller)
}

// MARK: - Observers

/// The observer the guard tests hand to their controllers. It can own its controller (the FBKVOController shape), so
/// a handler can reach the controller through the observer it receives.
final class GuardTestObserver: @unchecked Sendable {
    let name: String
    private let lock = NSLock()
    private var storedController: ObservationController<GuardTestObserver>?
    private let deinitAction: (@Sendable () -> Void)?

    init(_ name: String = "observer", onDeinit: (@Sendable () -> Void)? = nil) {
        self.name = name
        self.deinitAction = onDeinit
    }

    deinit { deinitAction?() }

    /// The controller the observer owns, if any. Setting it to `nil` drops the observer's reference.
    var controller: ObservationController<GuardTestObserver>? {
        get { lock.withLock { storedController } }
        set {
            // Release the old value outside the lock: its deinit unregisters and must not run under our lock.
            let old = lock.withLock { () -> ObservationController<GuardTestObserver>? in
                let old = storedController
                storedController = newValue
                return old
            }
            withExtendedLifetime(old) {}
        }
    }
}

/// A model that observes itself: the observer IS the observed object, and it owns its controller.
final class SelfObservingModel: KVOObject, @unchecked Sendable {
    @Observed var value = 0
    @Observed var label = ""
    let log = HandlerLog()
    private let lock = NSLock()
    private var storedController: ObservationController<SelfObservingModel>?

    var controller: ObservationController<SelfObservingModel>? {
        get { lock.withLock { storedController } }
        set { lock.withLock { storedController = newValue } }
    }
}

/// A weak reference that can cross threads.
final class WeakRef<Object: AnyObject>: @unchecked Sendable {
    private let lock = NSLock()
    private weak var stored: Object?

    init(_ object: Object?) { stored = object }

    var object: Object? { lock.withLock { stored } }
}

/// A mutable value shared between a test and its handlers.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    func mutate<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&stored) }
    }
}

// MARK: - Diagnostics

/// The checked content of a ``GuardDiagnostic`` (everything but the thread).
struct DiagnosticRecord: Equatable, CustomStringConvertible {
    var kind: GuardDiagnostic.Kind
    var reason: GuardDiagnostic.InvalidArgument?
    var observerType: String
    var objectType: String?
    var objectAddress: UInt?
    var keyPath: String?
    var file: String
    var line: UInt

    var description: String {
        "\(kind)\(reason.map { "(\($0))" } ?? "") observer=\(observerType) object=\(objectType ?? "nil")"
            + "@\(objectAddress.map { String($0, radix: 16) } ?? "nil") keyPath=\(keyPath ?? "nil") at \(file):\(line)"
    }
}

extension GuardDiagnostic {
    var record: DiagnosticRecord {
        DiagnosticRecord(
            kind: kind, reason: invalidArgument, observerType: observerType, objectType: objectType,
            objectAddress: objectAddress, keyPath: keyPath, file: callSite.file, line: callSite.line)
    }
}

extension CountingSink {
    var records: [DiagnosticRecord] { events.map(\.record) }
}

/// The diagnostic a test expects. `file` defaults to the calling test file's `#fileID`; `line` is the line of the
/// guard call that should have produced it.
func expectedDiagnostic(
    _ kind: GuardDiagnostic.Kind, _ reason: GuardDiagnostic.InvalidArgument? = nil,
    observerType: Any.Type = GuardTestObserver.self, object: AnyObject?, keyPath: String?, line: Int,
    file: String = #fileID
) -> DiagnosticRecord {
    DiagnosticRecord(
        kind: kind, reason: reason, observerType: String(describing: observerType),
        objectType: object.map { String(describing: type(of: $0)) },
        objectAddress: object.map { UInt(bitPattern: ObjectIdentifier($0)) }, keyPath: keyPath, file: file,
        line: UInt(line))
}

// MARK: - Schedule points

/// Pauses one chosen thread the first time it reaches one GuardCore schedule point, until the test resumes it.
///
/// Installs a process-wide hook; call ``uninstall()`` (in a `defer`) when done. Other threads pass straight through.
final class SchedulePause: @unchecked Sendable {
    let point: NamedSchedulePoint
    let reached = DispatchSemaphore(value: 0)
    private let resumeSignal = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var armedThread: UInt64?
    private var fired = false

    init(at point: NamedSchedulePoint) {
        self.point = point
        SchedulePoints.install(atPoints: { [self] reachedPoint in hit(reachedPoint) })
    }

    /// Arms the pause for the calling thread.
    func armForCurrentThread() {
        let thread = CurrentThread.identifier
        lock.withLock { armedThread = thread }
    }

    /// Lets the paused thread continue.
    func resume() { resumeSignal.signal() }

    func uninstall() { SchedulePoints.uninstall() }

    /// Runs `body` on a new thread of a queue labelled `label`, armed to pause here, and returns once that thread is
    /// paused. Wait on the returned group for `body` to finish (after ``resume()``).
    func runOnPausedThread(label: String, _ body: @escaping @Sendable () -> Void) -> DispatchGroup {
        let group = DispatchGroup()
        DispatchQueue(label: label).async(group: group) {
            self.armForCurrentThread()
            body()
        }
        reached.wait()
        return group
    }

    private func hit(_ reachedPoint: NamedSchedulePoint) {
        guard reachedPoint == point else { return }
        let thread = CurrentThread.identifier
        let pauseHere = lock.withLock { () -> Bool in
            guard !fired, armedThread == thread else { return false }
            fired = true
            return true
        }
        guard pauseHere else { return }
        reached.signal()
        resumeSignal.wait()
    }
}

// MARK: - Misc helpers

/// Runs `body` on a fresh thread of a private queue and waits for it (with a generous timeout against deadlock).
func onOtherThread<Result: Sendable>(
    timeout: TimeInterval = 30, file: StaticString = #filePath, line: UInt = #line,
    _ body: @escaping @Sendable () -> Result
) -> Result? {
    let box = LockedBox<Result?>(nil)
    let done = DispatchSemaphore(value: 0)
    DispatchQueue(label: "guard-tests.other-thread").async {
        box.value = body()
        done.signal()
    }
    guard done.wait(timeout: .now() + timeout) == .success else {
        XCTFail("the other thread did not finish within \(timeout) s (deadlock?)", file: file, line: line)
        return nil
    }
    return box.value
}

/// Fails the process with a clear message if `body` does not return within `seconds`: a deadlock in a re-entrant
/// handler would otherwise hang the whole test run silently.
func withDeadlockWatchdog<Result>(
    seconds: Int = 30, _ what: String, _ body: () throws -> Result
) rethrows -> Result {
    let finished = DispatchSemaphore(value: 0)
    DispatchQueue(label: "guard-tests.watchdog").async {
        if finished.wait(timeout: .now() + .seconds(seconds)) == .timedOut {
            fatalError("guard tests: \(what) did not finish within \(seconds) s: deadlock")
        }
    }
    defer { finished.signal() }
    return try body()
}

/// The runtime's live observance count, for "the runtime tables are back where they were" checks.
var liveObservances: Int { RuntimeMonitor.liveObservanceCount }
