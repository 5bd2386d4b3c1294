/// The history reorganised for the oracle: operations by id, registrations with their lifetime windows, changes by
/// the object and key they change, links between objects over time, and removals by the controller, object and key
/// they touch.
package struct HistoryIndex {
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

    /// When one object linked another (was its `link`): possibly from the setting link's call to the next link's
    /// return, surely from the setting link's return to the next link's call.
    struct LinkSpan {
        let root: Int
        let target: Int
        let possibleStart: UInt64
        let sureStart: UInt64
        var sureEnd: UInt64 = .max
        var possibleEnd: UInt64 = .max
        /// The link operation that set it.
        let link: Int
    }

    private(set) var operations: [Int: OperationRecord] = [:]
    /// Every observe operation that was performed, by id (= registration id).
    private(set) var observes: [Int: OperationRecord] = [:]
    /// Registrations that exist (observe reported `registered`, or `unknown` for raw KVO with a key), by id.
    package private(set) var windows: [Int: RegistrationWindow] = [:]
    /// Registration ids by (controller, object, key).
    private var windowsByTriple: [Triple: [Int]] = [:]
    /// Performed changes by (object, key), in call order.
    private(set) var changes: [ObjectKey: [OperationRecord]] = [:]
    private(set) var unobserves: [Triple: [OperationRecord]] = [:]
    private(set) var objectUnobserves: [Pair: [OperationRecord]] = [:]
    private(set) var allUnobserves: [Int: [OperationRecord]] = [:]
    /// Link operations by the object whose link they set, in call order (one object's links never overlap).
    private(set) var links: [Int: [OperationRecord]] = [:]
    /// Who linked each object, and when, by the linked object.
    private(set) var spansByTarget: [Int: [LinkSpan]] = [:]
    /// Whom each object linked, and when, by the linking object.
    private(set) var spansByRoot: [Int: [LinkSpan]] = [:]
    /// When each object was taken out of its slot (released or adopted): from then on it may be gone.
    private(set) var leftSlot: [Int: UInt64] = [:]
    /// Objects taken out of their slot by a handler's adopt action (the handler's sink keeps them), by id.
    private(set) var adopted: Set<Int> = []
    /// When each `.initial` notification arrived, by registration.
    private(set) var initialTimes: [Int: UInt64] = [:]
    /// Operations that dropped the slot's reference to an observer, by observer id. The observer may be gone any
    /// time after such a call begins: its weak references clear the moment the last strong one goes, which can be
    /// well before its deinit records the time (the thread may be preempted in between).
    private(set) var observerReleases: [Int: [OperationRecord]] = [:]
    /// Without guard semantics: controller id → every controller id of the same observer. Raw KVO removes by
    /// observer (`removeObserver(_:forKeyPath:)` drops that observer's most recent registration), so a removal made
    /// through one controller may end a registration made through another controller of the same observer (after a
    /// release-controller). Keying removals by controller alone reported false missing deliveries for raw targets.
    private var controllersSharingObserver: [Int: [Int]] = [:]
    /// Whether the system promises guard semantics.
    let guardSemantics: Bool
    /// Whether a weakly held registration surely ended when its object finished deinitializing (guard semantics).
    private let endsWeakRegistrationsAtObjectDeinit: Bool

    package init(_ history: History, guardSemantics: Bool, endsWeakRegistrationsAtObjectDeinit: Bool = false) {
        self.guardSemantics = guardSemantics
        self.endsWeakRegistrationsAtObjectDeinit = guardSemantics && endsWeakRegistrationsAtObjectDeinit
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
                if let key = record.key, record.outcome == .registered || record.outcome == .unknown, !key.isRefused {
                    windows[record.id] = RegistrationWindow(observe: record)
                    windowsByTriple[Triple(controller: record.controller, object: record.object, key: key), default: []]
                        .append(record.id)
                }
            case .mutate, .announce, .changeItems:
                changes[ObjectKey(object: record.object, key: record.key!), default: []].append(record)
            case .link:
                changes[ObjectKey(object: record.object, key: .link), default: []].append(record)
                links[record.object, default: []].append(record)
            case .unobserve:
                if let key = record.key {
                    unobserves[Triple(controller: record.controller, object: record.object, key: key), default: []]
                        .append(record)
                }
            case .unobserveObject:
                objectUnobserves[Pair(controller: record.controller, object: record.object), default: []].append(record)
            case .unobserveAll:
                allUnobserves[record.controller, default: []].append(record)
            case .releaseObserver:
                if record.observer >= 0 { observerReleases[record.observer, default: []].append(record) }
            case .releaseObject, .adoptObject:
                if record.object >= 0 { leftSlot[record.object] = min(leftSlot[record.object] ?? .max, record.call) }
                if record.kind == .adoptObject, record.object >= 0 { adopted.insert(record.object) }
            case .releaseController, .countRegistrations, .isObserving, .observedKeyPaths:
                break
            }
        }
        for key in changes.keys { changes[key]!.sort { $0.call < $1.call } }
        indexLinks()
        for delivery in history.deliveries where delivery.cause == delivery.registration {
            initialTimes[delivery.registration] = min(initialTimes[delivery.registration] ?? .max, delivery.time)
        }
        for id in Array(windows.keys) {
            windows[id] = bounded(windows[id]!, history: history)
        }
    }

    private mutating func indexLinks() {
        for root in Array(links.keys) {
            links[root]!.sort { $0.call < $1.call }
            let list = links[root]!
            for (position, link) in list.enumerated() where link.newValue != StressValue.nilValue {
                var span = LinkSpan(
                    root: root, target: link.newValue, possibleStart: link.call, sureStart: link.ret, link: link.id)
                if position + 1 < list.count {
                    span.sureEnd = list[position + 1].call
                    span.possibleEnd = list[position + 1].ret
                }
                spansByTarget[span.target, default: []].append(span)
                spansByRoot[root, default: []].append(span)
            }
        }
    }

    // MARK: Questions

    /// Whether an operation that let go of `observer` began before `time` (the observer may be gone from then on).
    func observerMayBeGone(_ observer: Int, before time: UInt64) -> Bool {
        (observerReleases[observer] ?? []).contains { $0.call < time }
    }

    /// Whether `root` may have linked `target` at some instant between `start` and `end`.
    func mayLink(_ root: Int, _ target: Int, between start: UInt64, and end: UInt64) -> Bool {
        (spansByTarget[target] ?? []).contains { $0.root == root && $0.possibleStart < end && $0.possibleEnd > start }
    }

    /// Whether a change of `key` on the old or the new middle object of `link` overlapped it (for `gauge`, whose sets
    /// do not take the lock a link holds: the values of `link.gauge` it read may be either middle's before or after).
    func mayChange(_ key: StressKey, ofMiddlesOf link: OperationRecord) -> Bool {
        [link.oldValue, link.newValue].contains { middle in
            middle != StressValue.nilValue
                && (changes[ObjectKey(object: middle, key: key)] ?? []).contains { $0.call < link.ret && $0.ret > link.call }
        }
    }

    /// Whether `root` surely linked `target` from `start` to `end`.
    func surelyLinks(_ root: Int, _ target: Int, from start: UInt64, to end: UInt64) -> Bool {
        (spansByTarget[target] ?? []).contains { $0.root == root && $0.sureStart <= start && $0.sureEnd >= end }
    }

    /// Whether `root`'s link may have been an object without `k0` (a stranger) at some instant between `start` and
    /// `end`.
    func mayLinkStranger(_ root: Int, between start: UInt64, and end: UInt64) -> Bool {
        let list = links[root] ?? []
        for (position, link) in list.enumerated() where Self.linksStranger(link) {
            let possibleEnd = position + 1 < list.count ? list[position + 1].ret : .max
            if link.call < end, possibleEnd > start { return true }
        }
        return false
    }

    /// Whether `link` set an object without `k0`: something, but no `link.k0` value.
    static func linksStranger(_ link: OperationRecord) -> Bool {
        link.newValue != StressValue.nilValue && link.newLeaf == StressValue.nilValue
    }

    /// Whether `operation` ran inside `ancestor` (as a handler action of it, or nested in one).
    func isNested(_ operation: OperationRecord, in ancestor: Int) -> Bool {
        var parent = operation.parent
        while parent >= 0 {
            if parent == ancestor { return true }
            parent = operations[parent]?.parent ?? -1
        }
        return false
    }

    /// Calls that may remove registrations of (controller, object, key).
    func removals(controller: Int, object: Int, key: StressKey) -> [OperationRecord] {
        (controllersSharingObserver[controller] ?? [controller]).flatMap { controller in
            (unobserves[Triple(controller: controller, object: object, key: key)] ?? [])
                + (objectUnobserves[Pair(controller: controller, object: object)] ?? [])
                + (allUnobserves[controller] ?? [])
        }
    }

    // MARK: Windows

    /// Whether `removal` can take a registration away: a removal whose result says it removed something, or one
    /// without a result to go by (bulk removals, raw KVO).
    private static func removesSomething(_ removal: OperationRecord) -> Bool {
        switch removal.outcome {
        case .removed, .unknown, .none: return true
        default: return false
        }
    }

    private func bounded(_ window: RegistrationWindow, history: History) -> RegistrationWindow {
        var window = window
        let observe = window.observe
        if guardSemantics, observe.options.contains(.initial), let initial = initialTimes[observe.id] {
            window.hearsFrom = min(window.hearsFrom, initial)
        }
        for removal in removals(controller: observe.controller, object: observe.object, key: observe.key!)
        where removal.id != observe.id && removal.ret > observe.call {
            if Self.removesSomething(removal) {
                window.noteMayEnd(at: removal.call, by: removal.id)
            }
            if guardSemantics, endsForSure(window, removal) {
                window.noteSureEnd(at: removal.ret, by: removal.id)
            }
        }
        if guardSemantics {
            if let started = history.controllerEndStartTimes[observe.controller] {
                window.mayEnd = min(window.mayEnd, started)
            }
            if let finished = history.controllerEndTimes[observe.controller] {
                window.sureEnd = min(window.sureEnd, finished)
                window.tableSureEnd = min(window.tableSureEnd, finished)
            }
        }
        if history.weakControllers.contains(observe.controller), let left = leftSlot[observe.object] {
            window.noteMayEnd(at: left, by: -1)
        }
        if endsWeakRegistrationsAtObjectDeinit, history.weakControllers.contains(observe.controller),
            let gone = history.objectDeinitTimes[observe.object]
        {
            window.noteObjectGone(at: gone)
        }
        for release in observerReleases[observe.observer] ?? [] {
            window.mayEnd = min(window.mayEnd, release.call)
        }
        if let gone = history.observerDeinitTimes[observe.observer] {
            window.mayEnd = min(window.mayEnd, gone)
            window.sureEnd = min(window.sureEnd, gone)
        }
        if guardSemantics, observe.options.contains(.initial), window.mayEnd < observe.ret {
            // Changes held back for the initial notification are dropped when the registration is removed before
            // they are delivered (by the observe, before it returns): nothing it may have heard by then is required.
            window.hearsFrom = max(window.hearsFrom, window.mayEnd)
        }
        return window
    }

    /// Whether `removal` surely ended `window`'s registration by the time it returned (guard semantics): it was called
    /// after the observe returned; or it ran inside the observe (in its `.initial` handler), after the registration
    /// existed; or it overlapped the observe, reported `removed`, and no other registration of the same key path could
    /// have been the one it removed (so every explanation orders it after this observe).
    private func endsForSure(_ window: RegistrationWindow, _ removal: OperationRecord) -> Bool {
        guard removal.outcome != .invalid else { return false }
        let observe = window.observe
        if removal.call > observe.ret { return true }
        if isNested(removal, in: observe.id) { return true }
        guard removal.kind == .unobserve, removal.outcome == .removed else { return false }
        return !anotherRegistrationMayBeRemovedBy(removal, besides: observe)
    }

    /// Whether a registration of the same (controller, object, key) other than `observe`'s may have been live when
    /// `removal` took effect.
    private func anotherRegistrationMayBeRemovedBy(_ removal: OperationRecord, besides observe: OperationRecord) -> Bool {
        let triple = Triple(controller: observe.controller, object: observe.object, key: observe.key!)
        for id in windowsByTriple[triple] ?? [] {
            guard let candidate = windows[id]?.observe, candidate.id != observe.id, candidate.call < removal.ret
            else { continue }
            if plainSureEnd(of: candidate, excluding: removal.id) > removal.call { return true }
        }
        return false
    }

    /// The earliest return of a removal called after `observe` returned, other than `excluded`, or of its controller's
    /// end or its observer's deinit: a registration is surely gone after it. (Only the plain rule: enough to tell
    /// that another registration was still possibly live.)
    private func plainSureEnd(of observe: OperationRecord, excluding excluded: Int) -> UInt64 {
        var end = UInt64.max
        for removal in removals(controller: observe.controller, object: observe.object, key: observe.key!)
        where removal.id != excluded && removal.call > observe.ret && removal.outcome != .invalid {
            end = min(end, removal.ret)
        }
        return end
    }
}

/// When a registration surely and possibly existed, and what ended it.
///
/// It possibly existed from its observe's call (`mayStart`) and surely from its return (`sureStart`). It possibly
/// ended at the first call that could have removed it, when its controller began to go away, when the slot let go of
/// its observer, or (held weakly) when its object left its slot (`mayEnd`). It surely ended when a removal that the
/// linearization orders after it returned, when its controller finished going away, when its observer was gone, or
/// (held weakly, guard semantics) when its object had finished deinitializing (`sureEnd`). Releasing a controller ends nothing by itself: an operation still holding it keeps it working.
///
/// A change that begins after `hearsFrom` must be heard while the registration is live: that is `sureStart`, or, for
/// the guard with `.initial`, the instant the initial notification arrived (its value was read just before, with the
/// registration already in place, so a later change is not reflected in it and must be delivered), unless the
/// registration may have ended before its observe returned (the guard drops the changes it held back for the initial
/// notification then).
package struct RegistrationWindow {
    package let observe: OperationRecord
    var mayStart: UInt64 { observe.call }
    var sureStart: UInt64 { observe.ret }
    var hearsFrom: UInt64
    package var mayEnd: UInt64 = .max
    package var sureEnd: UInt64 = .max
    /// The removal whose return is `sureEnd`, if a removal ended it (rather than its controller or observer).
    var endedBy: Int?
    /// When it surely left its controller's table (a removal, or the controller's end); an observer that is gone does
    /// not take registrations out of the table by itself, so the registration may still announce broken chains.
    var tableSureEnd: UInt64 = .max
    /// The two earliest removal calls (and objects leaving their slot) that may have ended it, for registration
    /// counts during one of those removals, which must leave that removal itself out.
    private(set) var removalMayEnds = EarliestTwo()
    /// The two earliest removal returns that surely ended it, likewise.
    private(set) var removalSureEnds = EarliestTwo()

    init(observe: OperationRecord) {
        self.observe = observe
        self.hearsFrom = observe.ret
    }

    mutating func noteMayEnd(at time: UInt64, by operation: Int) {
        mayEnd = min(mayEnd, time)
        removalMayEnds.add(time, operation)
    }

    /// Notes that the weakly held object had surely finished deinitializing at `time` (guard semantics: the backend
    /// drops the registration during the deinit, so it is out of the table and hears nothing more by then). While the
    /// deinit runs, before `time`, the registration may still be counted, announce a broken chain or hear a change
    /// already under way; the window allows all of that, as it ends only at `time`. Counts as a may end too, which
    /// the object's leaving its slot always comes before anyway.
    mutating func noteObjectGone(at time: UInt64) {
        mayEnd = min(mayEnd, time)
        removalMayEnds.add(time, -1)
        sureEnd = min(sureEnd, time)
        tableSureEnd = min(tableSureEnd, time)
        removalSureEnds.add(time, -1)
    }

    mutating func noteSureEnd(at time: UInt64, by operation: Int) {
        if time < sureEnd {
            sureEnd = time
            endedBy = operation
        }
        tableSureEnd = min(tableSureEnd, time)
        removalSureEnds.add(time, operation)
    }

    /// Whether the registration was in its controller's table for all of `start...end` whatever `excluded` did
    /// (observers going away do not empty a table while a call on the controller runs).
    func surelyInTable(from start: UInt64, to end: UInt64, excluding excluded: Int) -> Bool {
        sureStart <= start && removalMayEnds.earliest(excluding: excluded) >= end
    }

    /// Whether the registration may have been in its controller's table at some instant of `start...end`.
    func possiblyInTable(from start: UInt64, to end: UInt64, excluding excluded: Int) -> Bool {
        mayStart <= end && removalSureEnds.earliest(excluding: excluded) > start
    }
}

/// The two earliest (time, operation) pairs seen, so the earliest without one given operation can be had.
struct EarliestTwo {
    private var first: (time: UInt64, operation: Int) = (.max, Int.min)
    private var second: (time: UInt64, operation: Int) = (.max, Int.min)

    mutating func add(_ time: UInt64, _ operation: Int) {
        if time < first.time {
            second = first
            first = (time, operation)
        } else if time < second.time {
            second = (time, operation)
        }
    }

    /// The earliest time not from `operation` (`.max` if none).
    func earliest(excluding operation: Int) -> UInt64 {
        first.operation == operation && operation != -1 ? second.time : first.time
    }
}
