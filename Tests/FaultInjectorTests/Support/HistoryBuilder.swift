@testable import FaultInjector
import GuardCore

/// Builds synthetic histories for the oracle: one controller (id 100) of one observer (id 200), objects with ids
/// from 300, operations and notifications at explicit instants. Removals may name another controller of the same
/// observer (register it in `history.controllerObservers`).
struct HistoryBuilder {
    static let controller = 100
    static let observer = 200
    static let object = 300

    var history = History()
    private var nextID = 1
    private var nextSequence: [Int: Int] = [:]

    init() {
        history.controllerObservers[Self.controller] = Self.observer
    }

    private mutating func makeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    /// A new operation of `kind` on `key` of `object`, called at `call` and returned at `ret`.
    private mutating func operation(
        _ kind: OperationRecord.Kind, _ key: StressKey, object: Int, at call: UInt64, returning ret: UInt64, worker: Int
    ) -> OperationRecord {
        let id = makeID()
        var record = OperationRecord(id: id, worker: worker, index: id, kind: kind)
        record.object = object
        record.key = key
        record.call = call
        record.ret = ret
        return record
    }

    /// Appends `record`, keeping operations in call order, and returns it.
    private mutating func append(_ record: OperationRecord) -> OperationRecord {
        history.operations.append(record)
        history.operations.sort { $0.call < $1.call }
        return record
    }

    /// An observe through the builder's controller.
    @discardableResult
    mutating func observe(
        _ key: StressKey, options: StressOptions = [.new, .old], at call: UInt64, returning ret: UInt64,
        outcome: OperationRecord.Outcome = .registered, object: Int = object, initialValue: Int = 0, worker: Int = 0
    ) -> OperationRecord {
        var record = operation(.observe, key, object: object, at: call, returning: ret, worker: worker)
        record.controller = Self.controller
        record.observer = Self.observer
        record.options = options
        record.outcome = outcome
        record.newValue = initialValue
        return append(record)
    }

    /// An unobserve of one key through the builder's controller; `parent` makes it a handler action of that
    /// operation.
    @discardableResult
    mutating func unobserve(
        _ key: StressKey, at call: UInt64, returning ret: UInt64, outcome: OperationRecord.Outcome = .removed,
        object: Int = object, controller: Int = controller, worker: Int = 0, parent: Int = -1
    ) -> OperationRecord {
        var record = operation(.unobserve, key, object: object, at: call, returning: ret, worker: worker)
        record.controller = controller
        record.observer = Self.observer
        record.outcome = outcome
        record.parent = parent
        if parent >= 0 { record.index = -1 }
        return append(record)
    }

    /// An unobserve of a whole object through the builder's controller.
    @discardableResult
    mutating func unobserveObject(
        at call: UInt64, returning ret: UInt64, outcome: OperationRecord.Outcome, object: Int = object, worker: Int = 0
    ) -> OperationRecord {
        var record = operation(.unobserveObject, .k0, object: object, at: call, returning: ret, worker: worker)
        record.key = nil
        record.controller = Self.controller
        record.observer = Self.observer
        record.outcome = outcome
        return append(record)
    }

    /// An unobserve-all through the builder's controller that says it removed `removed` registrations.
    @discardableResult
    mutating func unobserveAll(at call: UInt64, returning ret: UInt64, removed: Int, worker: Int = 0) -> OperationRecord {
        var record = operation(.unobserveAll, .k0, object: -1, at: call, returning: ret, worker: worker)
        record.key = nil
        record.controller = Self.controller
        record.observer = Self.observer
        record.answer = removed
        return append(record)
    }

    /// A query through the builder's controller with its answer (`isObserving`: 0 or 1; `observedKeyPaths`: a set
    /// of key bits; `countRegistrations`: the count).
    @discardableResult
    mutating func query(
        _ kind: OperationRecord.Kind, key: StressKey? = nil, answer: Int, at call: UInt64, returning ret: UInt64,
        object: Int = object, worker: Int = 0
    ) -> OperationRecord {
        var record = operation(kind, .k0, object: kind == .countRegistrations ? -1 : object, at: call, returning: ret, worker: worker)
        record.key = key
        record.controller = Self.controller
        record.observer = Self.observer
        record.outcome = .answered
        record.answer = answer
        return append(record)
    }

    /// `object` taken out of its slot: released (`.releaseObject`), or adopted by a handler (`.adoptObject`).
    @discardableResult
    mutating func takeOutOfSlot(
        _ kind: OperationRecord.Kind = .releaseObject, object: Int = object, at call: UInt64, returning ret: UInt64,
        worker: Int = 0
    ) -> OperationRecord {
        var record = operation(kind, .k0, object: object, at: call, returning: ret, worker: worker)
        record.key = nil
        return append(record)
    }

    /// A link of `root` to `target` (an object id, or nil), changing `link.k0` from `oldLeaf` to `newLeaf` and
    /// `link.gauge` from `oldGauge` to `newGauge`.
    @discardableResult
    mutating func link(
        _ root: Int, from previous: Int? = nil, to target: Int?, leaf oldLeaf: Int? = nil, to newLeaf: Int? = nil,
        gauge oldGauge: Int? = nil, gaugeTo newGauge: Int? = nil, at call: UInt64, returning ret: UInt64, worker: Int = 0
    ) -> OperationRecord {
        var record = operation(.link, .link, object: root, at: call, returning: ret, worker: worker)
        record.oldValue = previous ?? StressValue.nilValue
        record.newValue = target ?? StressValue.nilValue
        record.oldLeaf = oldLeaf ?? StressValue.nilValue
        record.newLeaf = newLeaf ?? StressValue.nilValue
        record.oldGauge = oldGauge ?? StressValue.nilValue
        record.newGauge = newGauge ?? StressValue.nilValue
        return append(record)
    }

    /// A to-many change of `items` of the given kind at the positions in `mask`, with fingerprints of the old and
    /// new elements.
    @discardableResult
    mutating func changeItems(
        _ kind: KeyValueChange.Kind, mask: UInt64, old: Int, new: Int, at call: UInt64, returning ret: UInt64,
        object: Int = object, worker: Int = 0
    ) -> OperationRecord {
        var record = operation(.changeItems, .items, object: object, at: call, returning: ret, worker: worker)
        record.changeKind = UInt8(kind.rawValue)
        record.indexMask = mask
        record.oldValue = old
        record.newValue = new
        return append(record)
    }

    /// A diagnostic naming `operation`'s call site.
    mutating func diagnostic(
        _ kind: GuardDiagnostic.Kind, for operation: OperationRecord, keyPath: String?,
        reason: GuardDiagnostic.InvalidArgument? = nil, at time: UInt64? = nil
    ) {
        history.diagnostics.append(
            DiagnosticRecord(
                kind: kind, reason: reason, keyPath: keyPath, operation: operation.id, worker: operation.worker,
                time: time ?? operation.ret))
    }

    /// A mutation of a stored key from `old` to `new`; `sum` moves by the same amount for `k0` and `k1`.
    @discardableResult
    mutating func mutate(
        _ key: StressKey, from old: Int, to new: Int, sum oldSum: Int = 0, at call: UInt64, returning ret: UInt64,
        object: Int = object, worker: Int = 0
    ) -> OperationRecord {
        var record = operation(.mutate, key, object: object, at: call, returning: ret, worker: worker)
        record.oldValue = old
        record.newValue = new
        record.oldSum = oldSum
        record.newSum = key == .k2 ? oldSum : oldSum - old + new
        return append(record)
    }

    /// The notification `registration` should get for `change`, as the guard would send it (for `link.k0`, `linked`
    /// and `link.gauge`, the change is either a link of the registration's object or a change of the leaf of its
    /// middle object), recorded on `worker` (the change's by default; the observing one for a change the guard held
    /// back until the initial notification).
    @discardableResult
    mutating func deliver(
        _ change: OperationRecord, to registration: OperationRecord, at time: UInt64, prior: Bool = false,
        old: Int? = nil, new: Int? = nil, indexMask: UInt64? = nil, worker: Int? = nil
    ) -> DeliveryRecord {
        let options = registration.options
        let sameKey = registration.key == change.key
        let throughLink = registration.key?.readsThroughLink == true
        let throughGauge = registration.key?.leaf == .gauge
        let linkOld = throughGauge ? change.oldGauge : change.oldLeaf
        let linkNew = throughGauge ? change.newGauge : change.newLeaf
        let expectedOld =
            sameKey ? change.oldValue : throughLink ? (change.key == .link ? linkOld : change.oldValue) : change.oldSum
        let expectedNew =
            sameKey ? change.newValue : throughLink ? (change.key == .link ? linkNew : change.newValue) : change.newSum
        let hasNew = options.contains(.new) && !prior
        return add(
            DeliveryRecord(
                registration: registration.id, cause: change.id, worker: worker ?? change.worker, sequence: 0, time: time,
                kind: 1, isPrior: prior, hasOld: options.contains(.old), hasNew: hasNew,
                oldValue: options.contains(.old) ? (old ?? expectedOld) : .min,
                newValue: hasNew ? (new ?? expectedNew) : .min, observer: registration.observer,
                keyPathMatches: true, indexMask: indexMask ?? 0))
    }

    /// The `.initial` notification of `registration`, inside its observe call.
    @discardableResult
    mutating func deliverInitial(to registration: OperationRecord, at time: UInt64) -> DeliveryRecord {
        let hasNew = registration.options.contains(.new)
        return add(
            DeliveryRecord(
                registration: registration.id, cause: registration.id, worker: registration.worker, sequence: 0,
                time: time, kind: 1, isPrior: false, hasOld: false, hasNew: hasNew,
                oldValue: .min, newValue: hasNew ? registration.newValue : .min, observer: registration.observer,
                keyPathMatches: true))
    }

    /// Appends `delivery` (its sequence renumbered in the worker's order) and keeps deliveries in time order.
    @discardableResult
    mutating func add(_ delivery: DeliveryRecord) -> DeliveryRecord {
        var delivery = delivery
        let sequence = nextSequence[delivery.worker, default: 0] + 1
        nextSequence[delivery.worker] = sequence
        delivery.sequence = sequence
        history.deliveries.append(delivery)
        history.deliveries.sort { $0.time < $1.time }
        return delivery
    }
}
