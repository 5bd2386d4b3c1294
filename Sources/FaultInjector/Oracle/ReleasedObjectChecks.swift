/// Nothing keeps a released object alive that has no reason to: every object that left its slot and that nothing
/// may still legitimately hold must be gone once the workers finished, while the controllers still live. (The leak
/// check after the teardown cannot see an object held by something bounded by its controller's life, such as a
/// removal record that keeps the object strongly: releasing the controllers frees it.)
///
/// Checked only for the objects whose legitimate holders the history fully accounts for, so a report is never a
/// false alarm. An object is left out when
/// - a handler adopted it (its sink keeps it for as long as the system under test keeps that sink, which the history
///   does not bound: a forwarding observer keeps its routes, and so their sinks, for its whole life);
/// - it is the last link set on some object (the linking object keeps it, and may itself still live);
/// - a registration of it may still be in a controller's table: a controller holding objects strongly keeps it while
///   registered, and a system without guard semantics (or a planted bug's baseline, which holds weakly registered
///   objects strongly) may keep it whatever the controller's kind. Only a removal the linearization orders after the
///   observe, or the end of its controller (both need guard semantics), surely took a registration out; a registration
///   without a key the history names (a typed key path without a name) ends only with its controller.
///
/// The harness keeps no other strong reference to an object out of its slot once its workers are done.
struct ReleasedObjectChecks {
    let index: HistoryIndex
    let history: History
    let guardSemantics: Bool

    func run(into verdict: inout Verdict) {
        let mayBeHeld = objectsThatMayBeHeld()
        for object in index.leftSlot.keys.sorted() where !index.adopted.contains(object) && !mayBeHeld.contains(object) {
            verdict.count("released objects nothing holds are gone before the teardown")
            guard history.releasedObjectsAliveAtEnd.contains(object) else { continue }
            verdict.add(.init(
                .leak,
                "object \(object) was released from its slot and nothing could still hold it (no registration of it "
                    + "left in any controller, not linked, not adopted), yet it was alive once the workers finished, "
                    + "while the controllers still lived"))
        }
    }

    /// Objects that a link, or a registration possibly still in a controller's table, may legitimately keep alive.
    private func objectsThatMayBeHeld() -> Set<Int> {
        var held: Set<Int> = []
        for links in index.links.values {
            if let last = links.last, last.newValue != StressValue.nilValue { held.insert(last.newValue) }
        }
        for observe in index.observes.values where observe.outcome == .registered || observe.outcome == .unknown {
            if mayStillBeInTable(observe) { held.insert(observe.object) }
        }
        return held
    }

    /// Whether `observe`'s registration may still be in its controller's table at the end of the run.
    private func mayStillBeInTable(_ observe: OperationRecord) -> Bool {
        guard guardSemantics else { return true }
        if let window = index.windows[observe.id] { return window.tableSureEnd == .max }
        return history.controllerEndTimes[observe.controller] == nil
    }
}
