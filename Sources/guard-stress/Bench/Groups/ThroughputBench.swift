import Dispatch
import GuardCore

/// Group 6: sets per second from 1, 2, 8 and 64 Dispatch queues, each setting its own observed object, its own
/// unobserved object, or all setting one shared observed object under a lock (as a correct app would); and reads per
/// second, each queue reading its own object. Ratios are to one queue: above 1 means the work spread over the cores,
/// below 1 means threads got in each other's way.
///
/// The shared object is set under a lock that spins briefly before it sleeps (glibc's adaptive mutex), and again
/// under a plain mutex: with 64 threads on a few cores, a plain mutex convoys on its own (each unlock wakes a sleeper
/// while the unlocking thread takes the lock again), so that figure measures the app's lock more than KVOGuard.
struct ThroughputBench: BenchGroup {
    let title = "6. Throughput from several queues"

    static let queueCounts = [1, 2, 8, 64]

    /// What the queues set.
    enum Workload: String, CaseIterable {
        /// Each queue its own model, observed by one guard handler (.new/.old).
        case observed
        /// Each queue its own model nobody observes.
        case unobserved
        /// One model observed by one guard handler, set by every queue under one lock that spins before it sleeps.
        case sharedObject = "shared-object"
        /// The same under a plain mutex.
        case sharedObjectPlainMutex = "shared-object-plain-mutex"
        /// Each queue reads its own model's `@Observed` property (a read costs the same whether anyone observes).
        case reads

        var summary: String {
            switch self {
            case .observed: return "each queue sets its own object, observed by one guard handler"
            case .unobserved: return "each queue sets its own object, which nobody observes"
            case .sharedObject:
                return "every queue sets one shared observed object, under a lock that spins briefly before it sleeps"
            case .sharedObjectPlainMutex: return "every queue sets one shared observed object, under a plain mutex"
            case .reads: return "each queue reads an @Observed property of its own object"
            }
        }

        /// What one operation of the workload is, as the figures count it.
        var operation: String { self == .reads ? "reads" : "sets" }

        /// Whether every queue sets the same object (under the setup's mutex).
        var isShared: Bool { self == .sharedObject || self == .sharedObjectPlainMutex }
    }

    var figures: [FigureSpec] {
        Workload.allCases.flatMap { workload in
            Self.queueCounts.map { queues in
                FigureSpec(
                    Self.name(workload, queues), .operationsPerSecond,
                    baseline: queues == 1 ? nil : Self.name(workload, 1),
                    "\(workload.operation) per second from \(queues) "
                        + "\(queues == 1 ? "queue" : "queues"): \(workload.summary)")
            }
        }
    }

    static func name(_ workload: Workload, _ queues: Int) -> String {
        "throughput.\(workload.rawValue).\(queues == 1 ? "1-queue" : "\(queues)-queues")"
    }

    func measure(_ context: BenchContext) -> [String: Double] {
        let workers = WorkerQueues(count: Self.queueCounts.max()!)
        let runSeconds = context.scale.pick(full: 0.1, quick: 0.03)
        var values: [String: Double] = [:]
        for workload in Workload.allCases {
            let names = Self.queueCounts.map { Self.name(workload, $0) }
            guard names.contains(where: { context.wants($0) }) else { continue }
            let setup = WorkloadSetup(workload, queues: workers.count)
            defer { setup.tearDown() }
            let total = Self.operations(lasting: runSeconds, on: workers, setup)
            let measurements = Self.queueCounts.map { queues in
                (Self.name(workload, queues), { () -> Double in
                    let perQueue = max(1, total / queues)
                    let seconds = workers.run(queues: queues) { index in setup.work(queue: index, operations: perQueue) }
                    return Double(perQueue * queues) / seconds
                })
            }
            values.merge(context.sampler.medians(measurements)) { _, new in new }
        }
        return values
    }

    /// How many operations (sets or reads) one queue makes in about `seconds`: every queue count then shares that
    /// much work, so a run is long enough to outweigh waking the queues, whatever one operation costs.
    private static func operations(lasting seconds: Double, on workers: WorkerQueues, _ setup: WorkloadSetup) -> Int {
        var operations = 1_000
        while true {
            let perQueue = operations
            let elapsed = workers.run(queues: 1) { index in setup.work(queue: index, operations: perQueue) }
            if elapsed >= seconds / 10 || operations >= 1 << 40 {
                return max(1_000, Int(Double(operations) * seconds / max(elapsed, 1e-9)))
            }
            operations *= 4
        }
    }
}

/// The objects (and observers) one throughput workload sets or reads.
private struct WorkloadSetup: Sendable {
    let workload: ThroughputBench.Workload
    let models: [BenchModel]
    let controllers: [ObservationController<Tally>]
    let tallies: [Tally]
    let mutex: BenchMutex

    init(_ workload: ThroughputBench.Workload, queues: Int) {
        self.workload = workload
        mutex = BenchMutex(spinsBeforeSleeping: workload == .sharedObject)
        let modelCount = workload.isShared ? 1 : queues
        models = (0..<modelCount).map { _ in BenchModel() }
        let observed = workload != .unobserved && workload != .reads
        tallies = observed ? models.map { _ in Tally() } : []
        controllers = tallies.map { $0.makeController() }
        for (model, controller) in zip(models, controllers) {
            Tally.observe(model, with: controller)
        }
    }

    /// The work of queue number `queue`: `operations` sets of its model (or of the shared one, under the lock), or as
    /// many reads of its model.
    func work(queue: Int, operations: Int) {
        let step = BlackHole.opaque(queue + 1)
        if workload == .reads {
            BlackHole.consume(ReadLoops.read(models[queue], iterations: operations, step: step))
        } else if workload.isShared {
            SetLoops.set(models[0], iterations: operations, step: step, under: mutex)
        } else {
            SetLoops.set(models[queue], iterations: operations, step: step)
        }
    }

    func tearDown() {
        controllers.forEach { $0.unobserveAll() }
        BlackHole.consume(models.reduce(0) { $0 &+ $1.value } &+ tallies.reduce(0) { $0 &+ $1.total })
    }
}
