/// The history reorganised for the oracle: operations by id, registrations with their lifetime windows, and
/// changes and removals by the object, key and controller they touch.
struct HistoryIndex {
    struct ObjectKey: Hashable {
        let object: Int
        let key: StressKey
    }

    struct Triple: Hashable {
        let controller: Int
        let object: Int
        let key: StressKey
    }

    struct Pair: Hashable {
        let controller: Int
        let object: Int
    }

    /// When a registration surely and possibly existed.
    ///
    /// It possibly existed from its observe's call (`mayStart`) and surely from its return (`sureStart`). It
    /// possibly ended at the first call that could have removed it, when its controller began to go away, or when
    /// the slot let go of its observer (`mayEnd`). It surely ended when a call that started after it surely
    /// existed returned, when its controller finished going away, or when its observer was gone (`sureEnd`).
    /// Releasing a controller ends nothing by itself: an operation still holding it keeps it working.
    struct Window {
        let observe: OperationRecord
        var mayStart: UInt64 { observe.call }
        var sureStart: UInt64 { observe.ret }
        var mayEnd: UInt64 = .max
        var sureEnd: UInt64 = .max
    }

    private(set) var operations: [Int: OperationRecord] = [:]
    /// Every observe operation that was performed, by id (= registration id).
    private(set) var observes: [Int: OperationRecord] = [:]
    /// Registrations that exist (observe reported `registered`, or `unknown` for raw KVO), by id.
    private(set) var windows: [Int: Window] = [:]
    /// Performed mutations by (object, key), in call order.
    private(set) var changes: [ObjectKey: [OperationRecord]] = [:]
    /// Registration ids by (object, key).
    private(set) var registrationsByObjectKey: [ObjectKey: [Int]] = [:]
    private(set) var unobserves: [Triple: [OperationRecord]] = [:]
    private(set) var objectUnobserves: [Pair: [OperationRecord]] = [:]
    private(set) var allUnobserves: [Int: [OperationRecord]] = [:]
    /// Operations that dropped the slot's reference to an observer, by observer id. The observer may be gone any
    /// time after such a call begins: its weak references clear the moment the last strong one goes, which can be
    /// well before its deinit records the time (the thread may be preempted in between).
    private(set) var observerReleases: [Int: [OperationRecord]] = [:]
    /// Without guard semantics: controller id → every controller id of the same observer. Raw KVO removes by
    /// observer (`removeObserver(_:forKeyPath:)` drops that observer's most recent registration), so a removal made
    /// through one controller may end a registration made through another controller of the same observer (after a
    /// release-controller). Keying removals by controller alone reported false missing deliveries for raw targets.
    private var controllersSharingObserver: [Int: [Int]] = [:]

    init(_ history: History, guardSemantics: Bool) {
        if !guardSemantics {
            var byObserver: [Int: [Int]] = [:]
            for (controller, observer) in history.controllerObservers { byObserver[observer, default: []].append(controller) }
            for controllers in byObserver.values {
                for controller in controllers { controllersSharingObserver[controller] = controllers }
            }
        }
        for record in history.operations where record.outcome != .skipped {
            operations[record.id] = record
            switch record.kind {
            case .observe:
                observes[record.id] = record
                if record.outcome == .registered || record.outcome == .unknown {
                    windows[record.id] = Window(observe: record)
                    registrationsByObjectKey[ObjectKey(object: record.object, key: record.key!), default: []]
                        .append(record.id)
                }
            case .mutate:
                changes[ObjectKey(object: record.object, key: record.key!), default: []].append(record)
            case .unobserve:
                unobserves[Triple(controller: record.controller, object: record.object, key: record.key!), default: []]
                    .append(record)
            case .unobserveObject:
                objectUnobserves[Pair(controller: record.controller, object: record.object), default: []].append(record)
            case .unobserveAll:
                allUnobserves[record.controller, default: []].append(record)
            case .releaseObserver:
                if record.observer >= 0 { observerReleases[record.observer, default: []].append(record) }
            case .releaseController, .releaseObject:
                break
            }
        }
        for key in changes.keys { changes[key]!.sort { $0.call < $1.call } }
        for id in Array(windows.keys) {
            windows[id] = bounded(windows[id]!, history: history, guardSemantics: guardSemantics)
        }
    }

    /// Whether an operation that let go of `observer` began before `time` (the observer may be gone from then on).
    func observerMayBeGone(_ observer: Int, before time: UInt64) -> Bool {
        (observerReleases[observer] ?? []).contains { $0.call < time }
    }

    /// The keys a change of `key` notifies.
    static func notified(by key: StressKey) -> [StressKey] { key.notifiedKeys }

    /// Calls that may remove registrations of (controller, object, key), with whether their result says they
    /// removed something (`nil`: no result, as for bulk removals and raw KVO).
    func removals(controller: Int, object: Int, key: StressKey) -> [OperationRecord] {
        (controllersSharingObserver[controller] ?? [controller]).flatMap { controller in
            (unobserves[Triple(controller: controller, object: object, key: key)] ?? [])
                + (objectUnobserves[Pair(controller: controller, object: object)] ?? [])
                + (allUnobserves[controller] ?? [])
        }
    }

    private func bounded(_ window: Window, history: History, guardSemantics: Bool) -> Window {
        var window = window
        let observe = window.observe
        let key = observe.key!
        for removal in removals(controller: observe.controller, object: observe.object, key: key)
        where removal.id != observe.id {
            let removesSomething: Bool
            switch removal.outcome {
            case .removed, .unknown, .none: removesSomething = true
            default: removesSomething = false
            }
            if removesSomething, removal.ret > observe.call {
                window.mayEnd = min(window.mayEnd, removal.call)
            }
            if guardSemantics, removal.call > observe.ret, removal.outcome != .invalid {
                window.sureEnd = min(window.sureEnd, removal.ret)
            }
        }
        if guardSemantics {
            if let started = history.controllerEndStartTimes[observe.controller] {
                window.mayEnd = min(window.mayEnd, started)
            }
            if let finished = history.controllerEndTimes[observe.controller] {
                window.sureEnd = min(window.sureEnd, finished)
            }
        }
        for release in observerReleases[observe.observer] ?? [] {
            window.mayEnd = min(window.mayEnd, release.call)
        }
        if let gone = history.observerDeinitTimes[observe.observer] {
            window.mayEnd = min(window.mayEnd, gone)
            window.sureEnd = min(window.sureEnd, gone)
        }
        return window
    }
}
