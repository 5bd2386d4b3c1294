import GuardCore

/// The harness's handle on one controller of the system under test. When the handle goes away it releases the
/// controller and records when that release started and finished (the guard unregisters everything in its
/// deinit, so registrations end in between).
final class ControllerHandle: @unchecked Sendable {
    let id: Int
    let observerID: Int
    let holdsWeakly: Bool
    private var controller: (any StressController)?
    /// The run's clock (monotonic nanoseconds or logical ticks).
    private let now: @Sendable () -> UInt64
    private let onEnd: @Sendable (_ id: Int, _ started: UInt64, _ finished: UInt64) -> Void
    /// Gets the handlers the controller's release let go of, in order (``BulkRelease``).
    private let onReleases: @Sendable (BulkReleaseRecord) -> Void

    init(
        id: Int, observerID: Int, holdsWeakly: Bool, controller: any StressController, now: @escaping @Sendable () -> UInt64,
        onReleases: @escaping @Sendable (BulkReleaseRecord) -> Void = { _ in },
        onEnd: @escaping @Sendable (_ id: Int, _ started: UInt64, _ finished: UInt64) -> Void
    ) {
        self.id = id
        self.observerID = observerID
        self.holdsWeakly = holdsWeakly
        self.controller = controller
        self.now = now
        self.onReleases = onReleases
        self.onEnd = onEnd
        SchedulePoints.created(self)
    }

    /// Runs `body` with the controller while this handle is guaranteed alive, so the controller cannot outlive
    /// the handle's recorded end; `nil` if the handle has no controller.
    func perform<Result>(_ body: (any StressController) -> Result) -> Result? {
        withExtendedLifetime(self) { controller.map(body) }
    }

    deinit {
        // An explorer counts the step that runs the deinit as writing the handle's life.
        SchedulePoints.access(self, .lifetime, .write)
        let started = now()
        let releases = BulkRelease.during(operation: WorkerContext.current?.frames.last ?? -1, controller: id) {
            controller = nil
        }
        onReleases(releases)
        onEnd(id, started, now())
    }
}
