/// Everything that shapes a stress scenario apart from its seed: how many workers, objects and controllers, the
/// operation and handler-action mixes, observing options, and faults.
public struct ScenarioConfiguration: Codable, Hashable, Sendable {
    /// Worker queues; more than the machine's cores, so the scheduler preempts mid-operation.
    public var workers = 64
    /// Operations each worker draws.
    public var operationsPerWorker = 1_000
    /// Object slots shared by all workers.
    public var objects = 6
    /// The keys observe, unobserve and query operations draw from (in ``StressKey``'s order); mutations set those of
    /// ``StressKey/spelledApart`` listed here besides `k0`, `k1` and `k2`. ``StressKey/widened`` and
    /// ``StressKey/spelledApart`` by default (every key but `gauge` and `link.gauge`, which profiles that want them
    /// name); a configuration written before the widened keys existed has none listed and draws from
    /// ``StressKey/classic``.
    public var keys: [StressKey] = StressKey.widened + StressKey.spelledApart
    /// Controller slots (each an observer with its controller) shared by all workers.
    public var controllers = 8
    /// Every `weakHoldingEvery`-th controller slot holds its objects weakly (0: none do), unless ``weakControllers``
    /// lists them.
    public var weakHoldingEvery = 4
    /// The controller slots that hold their objects weakly, listed (a text scenario's `weak c1` line); when set, it
    /// decides alone and ``weakHoldingEvery`` is ignored. `nil` (the default, and every file written before it
    /// existed): ``weakHoldingEvery`` decides.
    public var weakControllers: [Int]?
    /// Relative weights of the operations.
    public var mix = OperationMix()
    /// Relative weights of handler actions.
    public var actions = HandlerActionMix()
    /// Chance that each of `.new`, `.old`, `.prior` is requested by an observe (`.initial` comes from the mix).
    public var optionProbability = 0.5
    /// Injected pauses.
    public var faults = FaultProfile()
    /// Whether an observe with `.initial` + `.new` of `link` (a key kept behind a lock, so reading it while another
    /// thread sets it is no data race) lets links of the object race the initial value's read (the world holds no
    /// lock of the object while it observes): the oracle then accepts any value the key had during the call, and
    /// requires a change that completed after the observe began to be in that value or delivered. Other keys are
    /// plain stored properties (or made of several), always read with the object's mutation lock held. New
    /// configurations race; a file written before this existed did not (read as `false`, so it replays as it ran).
    public var racesInitialValue = true
    /// Whether stress objects remove their own registrations in their deinit (the FBKVOController-era habit), through
    /// a controller chosen by the object's id, when the deinit runs inside a worker's operation: a nested unobserve of
    /// one key, or of the whole object (each only if the mix draws that kind of removal). New configurations do; a
    /// file written before this existed did not (read as `false`, so it replays as it ran).
    public var unobservesInDeinit = true
    /// Whether some stress objects ask, in their deinit, to be observed (with `.initial`) through a controller chosen
    /// by the object's id, when the deinit runs inside a worker's operation; a system that promises to refuse that
    /// (``SystemUnderTest/refusesObservationInObjectDeinit``) must answer `.invalid`, and a controller that held the
    /// object would keep it past its deinit. New configurations do; a file written before this existed did not (read
    /// as `false`, so it replays as it ran).
    public var observesInDeinit = true
    /// Consumers of value sequences (`values(of:bufferingNewest:)`) that a chaos round runs beside its workers
    /// (``StreamPlan``), each judged by the oracle's value-stream checks. New configurations run 6; the controlled
    /// runner none (a consumer is a task its scheduler does not run); a file written before this existed none (read as
    /// 0, so it replays as it ran).
    public var streams = 6

    /// The default configuration: 64 workers of 1,000 operations on 6 objects and 8 controllers.
    public init() {}

    /// The default for the controlled runner: 4 workers of 25 operations on 3 objects and 3 controllers (the third
    /// holds its objects weakly), no injected pauses (the schedule decides the interleaving). Small, so each
    /// schedule is cheap and many schedules run per second.
    public static let controlledDefault: ScenarioConfiguration = {
        var configuration = ScenarioConfiguration()
        configuration.workers = 4
        configuration.operationsPerWorker = 25
        configuration.objects = 3
        configuration.controllers = 3
        configuration.weakHoldingEvery = 3
        configuration.faults = .none
        configuration.streams = 0
        return configuration
    }()

    /// The most operations one scenario may hold (they are all drawn up front).
    public static let operationLimit = 50_000_000

    /// How many value-sequence consumers a round may run.
    public static let streamLimit = 256

    /// How many object slots a configuration may have.
    public static let objectLimit = 16_384

    private enum CodingKeys: String, CodingKey {
        case workers, operationsPerWorker, objects, keys, controllers, weakHoldingEvery, weakControllers, mix, actions
        case optionProbability, faults, racesInitialValue, unobservesInDeinit, observesInDeinit, streams
    }

    /// Reads a configuration; `keys`, which older files lack, defaults to ``StressKey/classic`` (what they drew from),
    /// `racesInitialValue`, `unobservesInDeinit` and `observesInDeinit` to `false` and `streams` to 0 (how they ran).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        workers = try container.decode(Int.self, forKey: .workers)
        operationsPerWorker = try container.decode(Int.self, forKey: .operationsPerWorker)
        objects = try container.decode(Int.self, forKey: .objects)
        keys = try container.decodeIfPresent([StressKey].self, forKey: .keys) ?? StressKey.classic
        controllers = try container.decode(Int.self, forKey: .controllers)
        weakHoldingEvery = try container.decode(Int.self, forKey: .weakHoldingEvery)
        weakControllers = try container.decodeIfPresent([Int].self, forKey: .weakControllers)
        mix = try container.decode(OperationMix.self, forKey: .mix)
        actions = try container.decode(HandlerActionMix.self, forKey: .actions)
        optionProbability = try container.decode(Double.self, forKey: .optionProbability)
        faults = try container.decode(FaultProfile.self, forKey: .faults)
        racesInitialValue = try container.decodeIfPresent(Bool.self, forKey: .racesInitialValue) ?? false
        unobservesInDeinit = try container.decodeIfPresent(Bool.self, forKey: .unobservesInDeinit) ?? false
        observesInDeinit = try container.decodeIfPresent(Bool.self, forKey: .observesInDeinit) ?? false
        streams = try container.decodeIfPresent(Int.self, forKey: .streams) ?? 0
    }

    /// Whether controller slot `index` holds its objects weakly.
    public func holdsWeakly(controller index: Int) -> Bool {
        if let weakControllers { return weakControllers.contains(index) }
        return weakHoldingEvery > 0 && index % weakHoldingEvery == weakHoldingEvery - 1
    }

    /// Problems that make the configuration unusable, as readable sentences; empty when it is fine.
    public var problems: [String] {
        var problems: [String] = []
        if !(1...4_096).contains(workers) { problems.append("workers must be between 1 and 4096 (is \(workers))") }
        if !(0...10_000_000).contains(operationsPerWorker) {
            problems.append("operationsPerWorker must be between 0 and 10000000 (is \(operationsPerWorker))")
        }
        // Decoded numbers may be anything up to `Int.max`: the product is taken with overflow reported.
        let (operationCount, overflowed) = workers.multipliedReportingOverflow(by: operationsPerWorker)
        if overflowed || operationCount > Self.operationLimit {
            problems.append(
                "workers × operationsPerWorker must be at most \(Self.operationLimit) (is "
                    + (overflowed ? "beyond a 64-bit integer" : "\(operationCount)") + ")")
        }
        if !(1...Self.objectLimit).contains(objects) {
            problems.append("objects must be between 1 and \(Self.objectLimit) (is \(objects))")
        }
        if keys.isEmpty { problems.append("keys must name at least one key") }
        if !(0...Self.streamLimit).contains(streams) {
            problems.append("streams must be between 0 and \(Self.streamLimit) (is \(streams))")
        }
        if Set(keys).count != keys.count { problems.append("keys must not repeat a key") }
        if !(1...1_024).contains(controllers) {
            problems.append("controllers must be between 1 and 1024 (is \(controllers))")
        }
        if weakHoldingEvery < 0 { problems.append("weakHoldingEvery must not be negative (is \(weakHoldingEvery))") }
        if let weakControllers, let slot = weakControllers.first(where: { !(0..<controllers).contains($0) }) {
            problems.append("weakControllers names controller slot \(slot), beyond the \(controllers) controllers")
        }
        // Each weight is checked against its bound before the total is taken, so the total cannot overflow.
        let weights = 0...OperationMix.weightLimit
        if !mix.weights.allSatisfy(weights.contains) || mix.weights.reduce(0, +) <= 0 {
            problems.append(
                "the operation mix needs weights from 0 to \(OperationMix.weightLimit) with a positive total")
        }
        if !actions.weights.allSatisfy(weights.contains) || actions.weights.reduce(0, +) <= 0 {
            problems.append(
                "the handler action mix needs weights from 0 to \(OperationMix.weightLimit) with a positive total")
        }
        if !(0...1).contains(optionProbability) {
            problems.append("optionProbability must be between 0 and 1 (is \(optionProbability))")
        }
        for (name, probability) in [
            ("yieldProbability", faults.yieldProbability), ("spinProbability", faults.spinProbability),
            ("sleepProbability", faults.sleepProbability),
        ] where !(0...1).contains(probability) {
            problems.append("faults.\(name) must be between 0 and 1 (is \(probability))")
        }
        if !(0...10_000_000).contains(faults.maxSpinIterations) {
            problems.append("faults.maxSpinIterations must be between 0 and 10000000")
        }
        if !(0...1_000_000).contains(faults.maxSleepMicroseconds) {
            problems.append("faults.maxSleepMicroseconds must be between 0 and 1000000")
        }
        return problems
    }
}
