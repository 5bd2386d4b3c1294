import GuardCore

/// A model a screen binds several keys of: three `@Observed` integers.
final class ScreenModel: KVOObject, @unchecked Sendable {
    @Observed var title = 0
    @Observed var count = 0
    @Observed var isEnabled = 0

    /// The keys a screen observes on each model.
    static let keys = ["title", "count", "isEnabled"]
}

/// What a screen of an app does on appear and disappear: bind a dozen observers (every key of ``ScreenModel`` on
/// each of a few models) and drop them all, raw or through a guard controller made for the screen and released with
/// it (the common pattern: a controller per screen, its registrations removed by its release).
final class ScreenBindings: @unchecked Sendable {
    /// How many models a screen observes.
    static let models = 4
    /// How many registrations a screen makes.
    static let registrations = models * ScreenModel.keys.count

    private let models = (0..<ScreenBindings.models).map { _ in ScreenModel() }

    /// `times` screens raw: `addObserver` of every key of every model, then `removeObserver` of each.
    @inline(never)
    func bindRaw(times: Int, observer: Tally) {
        for _ in 0..<times {
            for model in models {
                for key in ScreenModel.keys { model.addObserver(observer, forKeyPath: key, options: [.new, .old]) }
            }
            for model in models {
                for key in ScreenModel.keys { model.removeObserver(observer, forKeyPath: key) }
            }
        }
    }

    /// `times` screens through the guard: a new controller observes every key of every model (`.new` / `.old`) and
    /// is released, which removes them.
    @inline(never)
    func bindGuarded(times: Int, observer: Tally) {
        for _ in 0..<times {
            // As an app makes it: the process-wide diagnostic sink (nothing here is a mistake, so nothing is logged).
            let controller = ObservationController(observer: observer)
            var registered = 0
            for model in models {
                for key in ScreenModel.keys {
                    let result = controller.observe(model, keyPath: key, options: [.new, .old]) { tally, _, change in
                        tally.add(change)
                    }
                    if result == .registered { registered += 1 }
                }
            }
            precondition(registered == Self.registrations, "the guard refused a registration in the bench")
        }
    }
}
