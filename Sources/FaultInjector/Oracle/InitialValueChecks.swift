/// The value of an `.initial` notification whose read raced changes of its key (an observe with `.initial` + `.new`
/// of `link`, made while other workers link the object elsewhere: ``ScenarioConfiguration/racesInitialValue``; or of
/// `gauge`, whose sets hold no lock the observe could take).
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
///
/// The raced value of `link.gauge` is not judged here (which middle object it was read through, and so which sets
/// could have left it, is not recorded): only that it comes, with a new value (``DeliveryChecks``).
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

    func run(into report: inout OracleReport) {
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
                let key = observe.key, !key.readsThroughLink
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
            let objectKey = HistoryIndex.ObjectKey(object: observe.object, key: observe.key!)
            check(
                delivery, of: observe, changes: index.changes[objectKey] ?? [],
                others: (windowsByObjectKey[objectKey] ?? []).filter { $0.observe.id != observe.id },
                delivered: delivered, into: &report)
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
        delivered: Set<Pair>, into report: inout OracleReport
    ) {
        let key = observe.key!
        // The changes that may have set the value read: from the last one completed before the observe began on,
        // those that began before the notification. Position -1 is the value before the first change.
        let firstCandidate = (changes.lastIndex { $0.ret < observe.call } ?? -1)
        let candidates = Array(firstCandidate..<changes.count).filter { $0 < 0 || changes[$0].call < delivery.time }
        let initial = changes.first?.oldValue ?? (key == .link ? StressValue.nilValue : 0)
        let value = { (position: Int) -> Int in position < 0 ? initial : changes[position].newValue }
        let describe = { OperationDescription.of(observe) }
        report.count(Self.valueRule)
        guard let read = candidates.last(where: { value($0) == delivery.newValue }) else {
            let allowed = candidates.map { value($0) }.map(String.init).joined(separator: ", ")
            return report.add(.init(
                .valueMismatch,
                "the initial notification of \(describe()) had new \(delivery.newValue), which \(key.name) never had "
                    + "during the call (it had \(allowed))"))
        }
        guard guardSemantics, let window = index.windows[observe.id] else { return }
        // Every change after the one read, completed after the observe began (and begun before the notification:
        // later ones must be delivered anyway, which the delivery checks see) while the registration surely lived
        // (nothing could have removed it yet: not its own initial handler, not another thread), must have been
        // delivered.
        for position in (read + 1)..<changes.count {
            let change = changes[position]
            guard change.ret > observe.call, change.call < delivery.time, change.ret <= window.mayEnd else { continue }
            // Announced for sure: another registration of the key existed throughout the change.
            guard others.contains(where: { $0.sureStart <= change.call && $0.mayEnd >= change.ret }) else { continue }
            report.count(Self.lossRule)
            if !delivered.contains(Pair(registration: observe.id, change: change.id)) {
                report.add(.init(
                    .missingDelivery,
                    "\(Self.lossRule), but \(describe()) got \(delivery.newValue) as its initial value and did not "
                        + "hear \(OperationDescription.of(change)), which completed after the observe began"))
            }
        }
    }
}
