/// The value of an `.initial` notification whose read raced changes of its key (an observe with `.initial` + `.new`
/// of `link`, made while other workers link the object elsewhere: ``ScenarioConfiguration/racesInitialValue``; or of
/// `gauge` or `link.gauge`, whose sets of `gauge` hold no lock the observe could take).
///
/// - It is a value the key had at some instant of the observe: the one left by the last change that completed before
///   the observe began, or one set by a change that began before the notification arrived.
/// - With guard semantics, a change that completes after the observe began is reflected in the initial value or
///   delivered as a change, never lost (the registration exists before the initial value is read): when such a
///   change was not delivered, and nothing could have removed the registration before the change completed, the
///   initial value is the one it set or a later one. A change that nobody surely
///   observed when it began is exempt, as the guard's documentation says ("a set of a property that nobody observed
///   when the set began is not announced at all"): only changes during which another registration of the same
///   object and key surely existed are held to it.
/// - A raced value read through the link (`link.gauge`) is one that the leaf of an object the link named at some
///   instant of the observe had at some instant of the observe: `nil` when the link named nothing or an object
///   without the leaf. (The read takes the link at one instant and the middle object's leaf at a later one; which
///   middle object it went through is not recorded, so every one the link may have named counts.) Only the value is
///   judged, not losses: a change heard through the link is checked by ``DeliveryChecks``.
///
/// Changes of one object's key never overlap (the world holds the object's mutation lock, or for `gauge` the key's own
/// lock, while it sets it), so they
/// form one sequence, each leaving its value from some instant of its call on; before the first, the key has the
/// value the first one found (a new object's: `nil` for `link`, 0 for a stored integer).
struct InitialValueChecks {
    let index: HistoryIndex
    let history: History
    let guardSemantics: Bool

    static let valueRule = "a raced initial value is one the key had during the observe"
    static let lossRule = "a change completed after observe began is in the initial value or delivered"
    static let throughLinkRule =
        "a raced initial value read through the link is one the leaf of an object the link named had during the observe"

    func run(into verdict: inout Verdict) {
        var initials: [Int: DeliveryRecord] = [:]
        var delivered: Set<Pair> = []
        for delivery in history.deliveries where !delivery.isPrior {
            if delivery.cause == delivery.registration {
                initials[delivery.registration] = delivery
            } else {
                delivered.insert(Pair(registration: delivery.registration, change: delivery.cause))
            }
        }
        let raced = initials.compactMap { id, delivery -> (OperationRecord, DeliveryRecord)? in
            guard let observe = index.observes[id], observe.newValue == StressValue.racedRead, delivery.hasNew,
                observe.key != nil
            else { return nil }
            return (observe, delivery)
        }.sorted { $0.0.id < $1.0.id }
        guard !raced.isEmpty else { return }
        var windowsByObjectKey: [HistoryIndex.ObjectKey: [RegistrationWindow]] = [:]
        for window in index.windows.values {
            guard let key = window.observe.key, window.observe.typedKey == nil else { continue }
            windowsByObjectKey[HistoryIndex.ObjectKey(object: window.observe.object, key: key), default: []].append(window)
        }
        for (observe, delivery) in raced {
            if let leaf = observe.key!.leaf {
                checkThroughLink(delivery, of: observe, leaf: leaf, into: &verdict)
                continue
            }
            let objectKey = HistoryIndex.ObjectKey(object: observe.object, key: observe.key!)
            check(
                delivery, of: observe, changes: index.changes[objectKey] ?? [],
                others: (windowsByObjectKey[objectKey] ?? []).filter { $0.observe.id != observe.id },
                delivered: delivered, into: &verdict)
        }
    }

    private struct Pair: Hashable {
        let registration: Int
        let change: Int
    }

    /// Checks the initial `delivery` of `observe` against the `changes` of its object's key, with `others` the
    /// windows of the other registrations of that object and key.
    private func check(
        _ delivery: DeliveryRecord, of observe: OperationRecord, changes: [OperationRecord], others: [RegistrationWindow],
        delivered: Set<Pair>, into verdict: inout Verdict
    ) {
        let key = observe.key!
        // The changes that may have set the value read: from the last one completed before the observe began on,
        // those that began before the notification. Position -1 is the value before the first change.
        let candidates = Self.positions(in: changes, from: observe.call, until: delivery.time)
        let initial = changes.first?.oldValue ?? (key == .link ? StressValue.nilValue : 0)
        let value = { (position: Int) -> Int in position < 0 ? initial : changes[position].newValue }
        let describe = { OperationDescription.of(observe) }
        verdict.count(Self.valueRule)
        guard let read = candidates.last(where: { value($0) == delivery.newValue }) else {
            let allowed = candidates.map { value($0) }.map(String.init).joined(separator: ", ")
            return verdict.add(.init(
                .valueMismatch,
                "the initial notification of \(describe()) had new \(delivery.newValue), which \(key.name) never had "
                    + "during the call (it had \(allowed))"))
        }
        // A registration that may have been removed before its observe returned may have dropped the changes it held
        // back for the initial notification.
        guard guardSemantics, let window = index.windows[observe.id], window.mayEnd >= observe.ret else { return }
        // Every change after the one read, completed after the observe began (and begun before the notification:
        // later ones must be delivered anyway, which the delivery checks see) while the registration surely lived
        // (nothing could have removed it yet: not its own initial handler, not another thread), must have been
        // delivered.
        for position in (read + 1)..<changes.count {
            let change = changes[position]
            guard change.ret > observe.call, change.call < delivery.time, change.ret <= window.mayEnd else { continue }
            // Announced for sure: another registration of the key existed throughout the change.
            guard others.contains(where: { $0.sureStart <= change.call && $0.mayEnd >= change.ret }) else { continue }
            verdict.count(Self.lossRule)
            if !delivered.contains(Pair(registration: observe.id, change: change.id)) {
                verdict.add(.init(
                    .missingDelivery,
                    "\(Self.lossRule), but \(describe()) got \(delivery.newValue) as its initial value and did not "
                        + "hear \(OperationDescription.of(change)), which completed after the observe began"))
            }
        }
    }

    /// Checks the initial `delivery` of `observe`, whose key reads `leaf` of the object its object links (see the
    /// rule above): the values allowed are those of `leaf` during the call on every object the link may have named
    /// during it, and `nil` if the link may have named nothing or an object without `leaf`.
    private func checkThroughLink(
        _ delivery: DeliveryRecord, of observe: OperationRecord, leaf: StressKey, into verdict: inout Verdict
    ) {
        let links = index.links[observe.object] ?? []
        var allowed: Set<Int> = []
        for position in Self.positions(in: links, from: observe.call, until: delivery.time) {
            let middle = position < 0 ? (links.first?.oldValue ?? StressValue.nilValue) : links[position].newValue
            guard middle != StressValue.nilValue else {
                allowed.insert(StressValue.nilValue)
                continue
            }
            // A link to an object without the leaf recorded nil as the leaf's new value. Before the first link it
            // recorded, whether the object linked had the leaf is not known: nil is allowed too.
            let leafAtLink = position < 0 ? StressValue.nilValue
                : leaf == .gauge ? links[position].newGauge : links[position].newLeaf
            if leafAtLink == StressValue.nilValue { allowed.insert(StressValue.nilValue) }
            let changes = index.changes[HistoryIndex.ObjectKey(object: middle, key: leaf)] ?? []
            for change in Self.positions(in: changes, from: observe.call, until: delivery.time) {
                allowed.insert(change < 0 ? (changes.first?.oldValue ?? 0) : changes[change].newValue)
            }
        }
        verdict.count(Self.throughLinkRule)
        guard !allowed.contains(delivery.newValue) else { return }
        let values = allowed.sorted().map { $0 == StressValue.nilValue ? "nil" : String($0) }.joined(separator: ", ")
        verdict.add(.init(
            .valueMismatch,
            "the initial notification of \(OperationDescription.of(observe)) had new "
                + "\(delivery.newValue == StressValue.nilValue ? "nil" : String(delivery.newValue)), which no object "
                + "the link named during the call had as \(leaf.name) then (they had \(values))"))
    }

    /// The positions in `changes` (of one object's key, which never overlap, in call order) whose value the key may
    /// have had at some instant from `start` to `end`: the last change completed before `start` and every later one
    /// that began before `end`. Position -1 is the value before the first change.
    private static func positions(in changes: [OperationRecord], from start: UInt64, until end: UInt64) -> [Int] {
        let first = changes.lastIndex { $0.ret < start } ?? -1
        return Array(first..<changes.count).filter { $0 < 0 || changes[$0].call < end }
    }
}
