import Foundation
import GuardCore

/// The operations that change values observers hear about: mutations of stored keys, links (the middle object of
/// `link.k0`), changes of `level` announced by hand, and to-many changes of `items`. Each holds the mutation locks of
/// every object whose values it changes or reads (concurrent sets of one Swift property are a data race in any
/// program; the harness models correct callers), and records the values before and after.
extension StressWorld {
    /// `items` never grows beyond this many elements (an insertion is skipped then).
    static let itemsLimit = 8

    func mutate(objectSlot o: Int, key: StressKey, index: Int, worker: WorkerContext) {
        if key == .gauge { return setGauge(objectSlot: o, index: index, worker: worker) }
        var record = begin(.mutate, index: index, worker: worker)
        // A handler may change the object it is hearing about only through a key nothing else depends on (`k2`, the
        // keys spelled apart): a nested change of `k0` or `k1` during a prior notification would move `sum` (and
        // `link.k0` of objects linking here) between the outer change's old and new reads.
        let movesOthers = key == .k0 || key == .k1
        if worker.heldObjectSlots.last == o, movesOthers { return skip(&record, worker: worker) }
        guard lockObjectSlot(o, worker: worker) else { return skip(&record, worker: worker) }
        defer { unlockObjectSlot(o, worker: worker) }
        guard let object = objectSlots[o].object else { return skip(&record, worker: worker) }
        record.object = object.id
        record.key = key
        record.oldValue = object.value(of: key)
        record.oldSum = object.sum
        record.newValue = makeValue()
        // The sum right after the store; handlers may change the object again before `set` returns.
        record.newSum = movesOthers ? record.oldSum &- record.oldValue &+ record.newValue : record.oldSum
        enter(&record, worker: worker)
        object.set(key, to: record.newValue)
        leave(&record, worker: worker)
    }

    /// Sets `gauge` of slot `o`'s object (a mutate of `gauge`, drawn from a worker's list only) holding the slot's
    /// `gauge` lock and no mutation lock: it may overlap a link of an object linking here, in either direction, while
    /// sets of one object's `gauge` never overlap (their old and new values are exact). In a scenario whose mix draws
    /// no sets of `gauge` (one in a seed file's own operation list) it holds the slot's mutation lock instead.
    private func setGauge(objectSlot o: Int, index: Int, worker: WorkerContext) {
        var record = begin(.mutate, index: index, worker: worker)
        let gaugeLock = objectSlots[o].gaugeLock
        if let gaugeLock {
            gaugeLock.lock()
        } else if !lockObjectSlot(o, worker: worker) {
            return skip(&record, worker: worker)
        }
        defer {
            if let gaugeLock { gaugeLock.unlock() } else { unlockObjectSlot(o, worker: worker) }
        }
        guard let object = objectSlots[o].object else { return skip(&record, worker: worker) }
        record.object = object.id
        record.key = .gauge
        record.oldValue = object.gauge
        record.newValue = makeValue()
        enter(&record, worker: worker)
        object.set(.gauge, to: record.newValue)
        leave(&record, worker: worker)
    }

    /// Sets the middle object of slot `o`'s object. Holds the locks of the object and of the old and new middle
    /// objects (always later slots), so `link.k0` is read consistently and links of one object never overlap; not
    /// their `gauge` locks, so `link.gauge` is read once the call began and may change under a set of `gauge`.
    func link(objectSlot o: Int, to target: LinkTarget, index: Int, worker: WorkerContext) {
        var record = begin(.link, index: index, worker: worker)
        guard !worker.heldObjectSlots.contains(o), lockObjectSlot(o, worker: worker) else {
            return skip(&record, worker: worker)
        }
        defer { unlockObjectSlot(o, worker: worker) }
        guard let root = objectSlots[o].object else { return skip(&record, worker: worker) }
        let previous = root.link
        let next: KVOObject?
        switch target {
        case .object(let slot): next = objectSlots[slot].object
        case .none: next = nil
        case .stranger: next = makeStranger()
        }
        let middles = [previous, next].compactMap { ($0 as? StressObject)?.home }.filter { $0 >= 0 }
        guard let locked = lockObjectSlots(middles, worker: worker) else { return skip(&record, worker: worker) }
        defer { unlockObjectSlots(locked, worker: worker) }
        record.object = root.id
        record.key = .link
        record.oldValue = StressValue.encode(previous)
        record.newValue = StressValue.encode(next)
        record.oldLeaf = (previous as? StressObject)?.k0 ?? StressValue.nilValue
        record.newLeaf = (next as? StressObject)?.k0 ?? StressValue.nilValue
        enter(&record, worker: worker)
        // Only where `link.gauge` can be observed: each read takes the object's gauge lock, a schedule point, and a
        // scenario without `link.gauge` (every one from before it existed) keeps the schedules it had.
        if configuration.keys.contains(.linkGauge) {
            record.oldGauge = (previous as? StressObject)?.gauge ?? StressValue.nilValue
            record.newGauge = (next as? StressObject)?.gauge ?? StressValue.nilValue
        }
        root.setLink(next)
        leave(&record, worker: worker)
    }

    /// Announces a change of `level` by hand; with `nested`, an insertion into `items` happens between the
    /// `willChangeValue` and the `didChangeValue` (recorded as a child of this operation).
    func announce(objectSlot o: Int, nested: Bool, index: Int, worker: WorkerContext) {
        var record = begin(.announce, index: index, worker: worker)
        guard !worker.heldObjectSlots.contains(o), lockObjectSlot(o, worker: worker) else {
            return skip(&record, worker: worker)
        }
        defer { unlockObjectSlot(o, worker: worker) }
        guard let object = objectSlots[o].object else { return skip(&record, worker: worker) }
        record.object = object.id
        record.key = .level
        record.oldValue = object.level
        record.newValue = makeValue()
        enter(&record, worker: worker)
        object.willChangeValue(forKey: "level")
        if nested { changeItems(of: object, change: .insert, index: -1, worker: worker) }
        object.noteSetReads()
        object.level = record.newValue
        object.didChangeValue(forKey: "level")
        leave(&record, worker: worker)
    }

    func changeItems(objectSlot o: Int, change: ItemsChange, index: Int, worker: WorkerContext) {
        guard !worker.heldObjectSlots.contains(o), lockObjectSlot(o, worker: worker) else {
            var record = begin(.changeItems, index: index, worker: worker)
            return skip(&record, worker: worker)
        }
        defer { unlockObjectSlot(o, worker: worker) }
        guard let object = objectSlots[o].object else {
            var record = begin(.changeItems, index: index, worker: worker)
            return skip(&record, worker: worker)
        }
        changeItems(of: object, change: change, index: index, worker: worker)
    }

    /// Inserts two elements (at the front and the end), or removes or replaces the first and the last, through the
    /// to-many helpers; skipped when there is no room or nothing to remove. The caller holds the object's lock.
    private func changeItems(of object: StressObject, change: ItemsChange, index: Int, worker: WorkerContext) {
        var record = begin(.changeItems, index: index, worker: worker)
        let items = object.items
        record.object = object.id
        record.key = .items
        record.oldValue = StressValue.nilValue
        record.newValue = StressValue.nilValue
        var positions: [Int]
        switch change {
        case .insert:
            guard items.count + 2 <= Self.itemsLimit else { return skip(&record, worker: worker) }
            positions = [0, items.count + 1]
            record.changeKind = UInt8(KeyValueChange.Kind.insertion.rawValue)
        case .remove, .replace:
            guard !items.isEmpty else { return skip(&record, worker: worker) }
            positions = items.count == 1 ? [0] : [0, items.count - 1]
            record.changeKind = UInt8((change == .remove ? KeyValueChange.Kind.removal : .replacement).rawValue)
            record.oldValue = StressValue.fingerprint(positions.map { items[$0] })
        }
        let indexes = IndexSet(positions)
        record.indexMask = StressValue.mask(indexes)
        let elements = change == .remove ? [] : positions.map { _ in makeValue() }
        if change != .remove { record.newValue = StressValue.fingerprint(elements) }
        enter(&record, worker: worker)
        switch change {
        case .insert: object.insert(elements, at: indexes, into: \.items)
        case .remove: object.removeElements(at: indexes, from: \.items)
        case .replace: object.replaceElements(at: indexes, with: elements, in: \.items)
        }
        leave(&record, worker: worker)
    }
}
