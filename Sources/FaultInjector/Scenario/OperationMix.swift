/// Relative weights of the operations a worker draws. Zero switches an operation off.
public struct OperationMix: Codable, Hashable, Sendable {
    public var observe = 20
    public var observeInitial = 10
    public var unobserve = 14
    public var doubleUnobserve = 3
    public var unobserveObject = 3
    public var unobserveAll = 2
    public var mutate = 40
    public var releaseObserver = 1
    public var releaseController = 2
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
    public var none = 70
    public var unobserveSelf = 12
    public var unobserveAll = 3
    public var releaseController = 2
    public var mutate = 8
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
