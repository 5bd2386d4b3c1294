import GuardCore

/// Group 4: one observe + unobserve pair through the guard against the raw runtime's add + remove pair, on an
/// object nobody else observes and on one with other observers of the same key; and a screen's whole life (a new
/// controller binds a dozen observers and is released) against the same registrations made and removed raw.
struct RegistrationPairBench: BenchGroup {
    let title = "4. Observe + unobserve pair"

    /// Other observers of the same key on the "observed" object.
    static let otherObservers = 10

    let figures = [
        FigureSpec(
            "registration.raw-pair.unobserved-object", .nanoseconds,
            "addObserver + removeObserver (.new/.old) on an object nobody else observes"),
        FigureSpec(
            "registration.guard-pair.unobserved-object", .nanoseconds,
            baseline: "registration.raw-pair.unobserved-object",
            "guard observe + unobserve (.new/.old) on an object nobody else observes"),
        FigureSpec(
            "registration.raw-pair.observed-object", .nanoseconds,
            "addObserver + removeObserver on an object with \(otherObservers) other observers of the key"),
        FigureSpec(
            "registration.guard-pair.observed-object", .nanoseconds,
            baseline: "registration.raw-pair.observed-object",
            "guard observe + unobserve on an object with \(otherObservers) other guard registrations of the key"),
        FigureSpec(
            "registration.token-pair", .nanoseconds, baseline: "registration.raw-pair.unobserved-object",
            "guardedObserve(\\.value) + invalidate() of its token (a controller of its own) on an object nobody else "
                + "observes"),
        FigureSpec(
            "registration.raw-screen", .nanoseconds,
            "a screen raw: addObserver of \(ScreenModel.keys.count) keys on each of \(ScreenBindings.models) models, "
                + "then removeObserver of each"),
        FigureSpec(
            "registration.guard-screen", .nanoseconds, baseline: "registration.raw-screen",
            "a screen through the guard: a new controller observes the same \(ScreenBindings.registrations) and is released"),
    ]

    func measure(_ context: BenchContext) -> [String: Double] {
        let pairs = context.scale.pick(full: 4_000, quick: 1_000)
        let tally = Tally()
        let controller = tally.makeController()

        let lonelyRaw = BenchModel()
        let lonelyGuarded = BenchModel()
        // A token holds its object weakly, and the first weak reference to an object gives it a side table for good,
        // which makes every later retain and release of it slower: the token gets an object of its own, so the
        // guard's pair is timed on an object like the raw pair's.
        let tokenModel = BenchModel()
        let crowdedRaw = BenchModel()
        let crowdedGuarded = BenchModel()
        let others = (0..<Self.otherObservers).map { _ in Tally() }
        let otherControllers = others.map { $0.makeController() }
        for (other, otherController) in zip(others, otherControllers) {
            crowdedRaw.addObserver(other, forKeyPath: BenchModel.key, options: [.new, .old])
            Tally.observe(crowdedGuarded, with: otherController)
        }
        defer {
            for other in others { crowdedRaw.removeObserver(other, forKeyPath: BenchModel.key) }
            otherControllers.forEach { $0.unobserveAll() }
        }
        let screens = context.scale.pick(full: 400, quick: 100)
        let screen = ScreenBindings()
        return context.sampler.medians([
            ("registration.raw-pair.unobserved-object", { Self.rawPairs(lonelyRaw, tally, pairs) }),
            ("registration.guard-pair.unobserved-object", { Self.guardPairs(lonelyGuarded, controller, pairs) }),
            ("registration.raw-pair.observed-object", { Self.rawPairs(crowdedRaw, tally, pairs) }),
            ("registration.guard-pair.observed-object", { Self.guardPairs(crowdedGuarded, controller, pairs) }),
            ("registration.token-pair", { Self.tokenPairs(tokenModel, pairs) }),
            ("registration.raw-screen", { Stopwatch.nanoseconds { screen.bindRaw(times: screens, observer: tally) } / Double(screens) }),
            ("registration.guard-screen", { Stopwatch.nanoseconds { screen.bindGuarded(times: screens, observer: tally) } / Double(screens) }),
        ])
    }

    /// Nanoseconds per raw add + remove pair.
    private static func rawPairs(_ model: BenchModel, _ observer: Tally, _ pairs: Int) -> Double {
        Stopwatch.nanoseconds {
            for _ in 0..<pairs {
                model.addObserver(observer, forKeyPath: BenchModel.key, options: [.new, .old])
                model.removeObserver(observer, forKeyPath: BenchModel.key)
            }
        } / Double(pairs)
    }

    /// Nanoseconds per token made with a Swift key path and invalidated.
    private static func tokenPairs(_ model: BenchModel, _ pairs: Int) -> Double {
        var active = 0
        let elapsed = Stopwatch.nanoseconds {
            for _ in 0..<pairs {
                let token = model.guardedObserve(\.value, options: [.new, .old]) { _, change in
                    BlackHole.consume(change.newValue ?? 0)
                }
                if token.isActive { active += 1 }
                token.invalidate()
            }
        }
        precondition(active == pairs, "a token did not observe in the bench")
        return elapsed / Double(pairs)
    }

    /// Nanoseconds per guard observe + unobserve pair.
    private static func guardPairs(_ model: BenchModel, _ controller: ObservationController<Tally>, _ pairs: Int) -> Double {
        var registered = 0
        let elapsed = Stopwatch.nanoseconds {
            for _ in 0..<pairs {
                if Tally.observe(model, with: controller) == .registered { registered += 1 }
                controller.unobserve(model, keyPath: BenchModel.key)
            }
        }
        precondition(registered == pairs, "the guard refused a registration in the bench")
        return elapsed / Double(pairs)
    }
}
