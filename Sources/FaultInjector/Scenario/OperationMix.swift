/// Relative weights of the operations a worker draws. Zero switches an operation off.
public struct OperationMix: Codable, Hashable, Sendable {
    /// Observe without `.initial`.
    public var observe = 20
    /// Observe with `.initial`.
    public var observeInitial = 10
    /// Unobserve one key path.
    public var unobserve = 14
    /// Unobserve one key path twice in a row.
    public var doubleUnobserve = 3
    /// Unobserve every key path of an object.
    public var unobserveObject = 3
    /// Unobserve everything of a controller.
    public var unobserveAll = 2
    /// Set a stored key.
    public var mutate = 40
    /// Replace a slot's observer (and its controller).
    public var releaseObserver = 1
    /// Replace a slot's controller.
    public var releaseController = 2
    /// Replace a slot's object.
    public var releaseObject = 2

    /// The default mix: observe-heavy churn with mutations, every kind of removal and release.
    public init() {}

    /// The weights in a fixed order, for drawing.
    var weights: [Int] {
        [
            observe, observeInitial, unobserve, doubleUnobserve, unobserveObject, unobserveAll, mutate,
            releaseObserver, releaseController, releaseObject,
        ]
    }
}

/// Relative weights of the actions a handler performs on its first notification.
public struct HandlerActionMix: Codable, Hashable, Sendable {
    /// Do nothing.
    public var none = 70
    /// Unobserve the notified key path.
    public var unobserveSelf = 12
    /// Unobserve everything of the notified controller.
    public var unobserveAll = 3
    /// Release the notified controller.
    public var releaseController = 2
    /// Mutate an object key.
    public var mutate = 8
    /// Observe another key path.
    public var observe = 5

    /// The default mix.
    public init() {}

    var weights: [Int] { [none, unobserveSelf, unobserveAll, releaseController, mutate, observe] }
}

/// How often workers pause, and how, to shake up interleavings.
public struct FaultProfile: Codable, Hashable, Sendable {
    /// Chance of `sched_yield` at an operation boundary or schedule point.
    public var yieldProbability = 0.04
    /// Chance of a short busy spin.
    public var spinProbability = 0.02
    /// Chance of a short sleep.
    public var sleepProbability = 0.002
    /// Longest spin, in loop iterations.
    public var maxSpinIterations = 2_000
    /// Longest sleep, in microseconds.
    public var maxSleepMicroseconds = 50
    /// Also pause at the schedule points inside GuardCore, not only between operations.
    public var insideOperations = true

    /// The default profile.
    public init() {}

    /// No injected faults at all.
    public static let none: FaultProfile = {
        var profile = FaultProfile()
        profile.yieldProbability = 0
        profile.spinProbability = 0
        profile.sleepProbability = 0
        profile.insideOperations = false
        return profile
    }()

    /// Whether any pause can happen at all.
    public var isEnabled: Bool {
        yieldProbability > 0 || spinProbability > 0 || sleepProbability > 0
    }
}
