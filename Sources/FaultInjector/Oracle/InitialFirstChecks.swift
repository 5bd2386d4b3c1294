/// The guard's promise about `.initial` and the changes around it (``ObservationController``): the handler hears
/// the initial notification before any change, and once the observe and every set that overlapped it have returned,
/// the last value it heard is the property's value. Checked with guard semantics only (Foundation, and the raw
/// runtime, deliver a change racing the observe whenever it comes).
///
/// - **Initial first**, for every registration made with `.initial` that got its initial notification: no
///   notification of a change, prior or not, comes before it. Two notifications recorded on one worker are ordered by
///   that worker's sequence, on two workers by their time (a registration's handler runs one at a time: a change
///   racing the initial notification waits for it, and sets of one key are ordered).
/// - **Last value current**, for a registration made with `.initial` + `.new` of a key whose notifications carry the
///   key's whole value (`k0`, `k1`, `k2`, `level`, `link`, `gauge`): changes of one object's key never overlap (the
///   world holds the object's mutation lock, or `gauge`'s own lock, while it changes it), and the harness writes a
///   value no other change writes. Let *settled* be the later of the observe's return and the returns of the changes
///   of the key that overlapped the observe. From then until the next change begins, the key has the value the last
///   change completed by then left, and every notification the registration got by then is its initial one or that of
///   a change completed by then (held-back changes are delivered before the observe returns). The last of them that
///   carries a value must stand for that value: be the notification of that change, or an initial notification that
///   read it. Judged by which change a notification stands for (the one it announces; for an initial value, the
///   change whose value it read), so a wrong value is left to the delivery and initial value checks. Not judged when
///   the registration may have ended by then (a removal that may have taken it, its observer or controller going, its
///   weakly held object leaving its slot): a removal drops held-back changes.
struct InitialFirstChecks {
    let index: HistoryIndex
    let history: History

    static let orderRule = "the handler hears the initial notification before any change"
    static let lastValueRule =
        "once observe and every change overlapping it returned, the last value the handler heard is the key's"

    /// The keys whose change notifications carry the key's whole value, set by changes of the key itself.
    static let wholeValueKeys: Set<StressKey> = [.k0, .k1, .k2, .level, .link, .gauge]

    func run(into verdict: inout Verdict) {
        var byRegistration: [Int: [DeliveryRecord]] = [:]
        for delivery in history.deliveries {
            guard let window = index.windows[delivery.registration], window.observe.options.contains(.initial) else {
                continue
            }
            byRegistration[delivery.registration, default: []].append(delivery)
        }
        for id in byRegistration.keys.sorted() {
            let deliveries = byRegistration[id]!
            // Without exactly one initial notification, the delivery checks report it.
            guard let initial = deliveries.first(where: { $0.cause == id }), let window = index.windows[id] else {
                continue
            }
            checkOrder(deliveries, initial: initial, of: window.observe, into: &verdict)
            checkLastValue(deliveries, of: window, into: &verdict)
        }
    }

    /// Whether `first` was recorded before `second`: by sequence on one worker, by time across workers.
    static func precedes(_ first: DeliveryRecord, _ second: DeliveryRecord) -> Bool {
        if first.worker == second.worker, first.worker >= 0 { return first.sequence < second.sequence }
        return first.time < second.time
    }

    private func checkOrder(
        _ deliveries: [DeliveryRecord], initial: DeliveryRecord, of observe: OperationRecord,
        into verdict: inout Verdict
    ) {
        verdict.count(Self.orderRule)
        guard let early = deliveries.first(where: { $0.cause != observe.id && Self.precedes($0, initial) }) else { return }
        let change = index.operations[early.cause].map(OperationDescription.of) ?? "a change"
        verdict.add(.init(
            .changeBeforeInitial,
            "\(Self.orderRule), but \(OperationDescription.of(observe)) heard "
                + (early.isPrior ? "the prior notification of " : "") + "\(change) before its initial notification"))
    }

    private func checkLastValue(_ deliveries: [DeliveryRecord], of window: RegistrationWindow, into verdict: inout Verdict) {
        let observe = window.observe
        guard observe.options.isSuperset(of: [.initial, .new]), let key = observe.key, Self.wholeValueKeys.contains(key)
        else { return }
        let changes = index.changes[HistoryIndex.ObjectKey(object: observe.object, key: key)] ?? []
        var settled = observe.ret
        for change in changes where change.call < observe.ret && change.ret > observe.call {
            settled = max(settled, change.ret)
        }
        guard window.mayEnd > settled else { return }
        let heard = deliveries.filter { !$0.isPrior && $0.hasNew && $0.time <= settled }
        guard var last = heard.first else { return }
        for delivery in heard.dropFirst() where Self.precedes(last, delivery) { last = delivery }
        // Judged by position in the key's changes, not by value: a wrong value is the delivery checks' to report.
        guard let position = position(of: last, for: observe, in: changes) else { return }
        let current = changes.lastIndex { $0.ret <= settled } ?? -1
        verdict.count(Self.lastValueRule)
        guard position < current else { return }
        verdict.add(.init(
            .staleLastValue,
            "\(Self.lastValueRule), but once \(OperationDescription.of(observe)) and the changes of \(key.name) "
                + "overlapping it had returned, its handler had last heard \(show(last.newValue)) while \(key.name) was "
                + "\(show(changes[current].newValue)), set by \(OperationDescription.of(changes[current]))"))
    }

    /// Which of `changes` (of the registration's key, in call order) left the value `delivery` carries: the change it
    /// announces, or for the initial notification the change whose value it read (position -1: the value before the
    /// first change); `nil` when that is not known (an initial value the key never had during the observe, which
    /// ``InitialValueChecks`` reports).
    private func position(of delivery: DeliveryRecord, for observe: OperationRecord, in changes: [OperationRecord]) -> Int? {
        guard delivery.cause == observe.id else { return changes.firstIndex { $0.id == delivery.cause } }
        let before = changes.lastIndex { $0.ret < observe.call } ?? -1
        // Read with the object locked: the value the last change completed before the call left.
        guard observe.newValue == StressValue.racedRead else { return before }
        let initial = changes.first?.oldValue ?? (observe.key == .link ? StressValue.nilValue : 0)
        return (before..<changes.count).last { position in
            (position < 0 || changes[position].call < delivery.time)
                && (position < 0 ? initial : changes[position].newValue) == delivery.newValue
        }
    }

    private func show(_ value: Int) -> String {
        value == StressValue.nilValue ? "nil" : String(value)
    }
}
