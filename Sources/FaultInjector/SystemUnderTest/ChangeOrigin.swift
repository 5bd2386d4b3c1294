/// Where a notification comes from, for a system under test that delivers a change later, on another thread than the
/// one that made it: the guard, for one, holds back a change that reaches a registration before its `.initial`
/// notification and delivers it on the observing thread right after. The harness attributes each notification to the
/// operation running on the thread that hands it to the ``DeliverySink``; recorded there as it stands, a held-back
/// change would count as part of the observe (a second initial notification).
///
/// Take ``current`` on the thread that makes the change (where the system first receives its notification) and hand
/// the notification to the sink inside ``deliver(_:)`` on the thread that delivers it. A system built on the guard
/// needs none of this: the guard tells the harness itself.
public struct ChangeOrigin: Sendable, Hashable {
    private let word: UInt64

    /// What the calling thread is doing now: the change whose notification is being received.
    public static var current: ChangeOrigin {
        ChangeOrigin(word: HeldChangeAttribution.shared.originOfHeldChange())
    }

    /// Runs `body`; the notifications it hands to a ``DeliverySink`` on the calling thread belong to this origin.
    public func deliver(_ body: () -> Void) {
        HeldChangeAttribution.shared.deliverHeldChange(from: word, body)
    }
}
