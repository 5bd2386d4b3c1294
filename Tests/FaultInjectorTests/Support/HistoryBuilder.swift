@testable import FaultInjector

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

    /// An unobserve of one key through the builder's controller.
    @discardableResult
    mutating func unobserve(
        _ key: StressKey, at call: UInt64, returning ret: UInt64, outcome: OperationRecord.Outcome = .removed,
        object: Int = object, controller: Int = controller, worker: Int = 0
    ) -> OperationRecord {
        var record = operation(.unobserve, key, object: object, at: call, returning: ret, worker: worker)
        record.controller = controller
        record.observer = Self.observer
        record.outcome = outcome
        return append(record)
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

    /// The notification `registration` should get for `change`, as the guard would send it.
    @discardableResult
    mutating func deliver(
        _ change: OperationRecord, to registration: OperationRecord, at time: UInt64, prior: Bool = false,
        old: Int? = nil, new: Int? = nil
    ) -> DeliveryRecord {
        let options = registration.options
        let sameKey = registration.key == change.key
        let expectedOld = sameKey ? change.oldValue : change.oldSum
        let expectedNew = sameKey ? change.newValue : change.newSum
        let hasNew = options.contains(.new) && !prior
        return add(
            DeliveryRecord(
                registration: registration.id, cause: change.id, worker: change.worker, sequence: 0, time: time,
                kind: 1, isPrior: prior, hasOld: options.contains(.old), hasNew: hasNew,
                oldValue: options.contains(.old) ? (old ?? expectedOld) : .min,
                newValue: hasNew ? (new ?? expectedNew) : .min, observer: registration.observer,
                keyPathMatches: true))
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
