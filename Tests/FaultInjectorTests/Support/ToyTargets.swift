@testable import FaultInjector
import GuardCore

/// Synthetic systems under test for the explorer, built from `ScheduledLock` steps, whose numbers of classes of
/// interleavings are known in closed form.
///
/// Worker `w` of a toy scenario calls its own controller `c<w>` once. `countRegistrations` takes `steps` locks one
/// after the other (each taken and released in one scheduling step): a lock shared by every controller, or the
/// controller's own. `isObserving` reads a shared word once and `registrationCount` of the `writer` shape writes it
/// once, each inside a lock of the controller's own (so that the access is a step of its own).
struct ToyTarget: SystemUnderTest {
    enum Shape: Sendable {
        /// `countRegistrations` takes one lock shared by all controllers `steps` times.
        case shared(steps: Int)
        /// `countRegistrations` takes its controller's own lock `steps` times.
        case disjoint(steps: Int)
        /// `countRegistrations` writes one shared word once; `isObserving` reads it once.
        case writerAndReaders
    }

    let shape: Shape
    private let sharedLock = ScheduledLock(name: "toy.shared")
    private let sharedWord = SharedObject()
    let promisesGuardSemantics = false

    init(_ shape: Shape) {
        self.shape = shape
    }

    var name: String {
        switch shape {
        case .shared(let steps): return "toy-shared-\(steps)"
        case .disjoint(let steps): return "toy-disjoint-\(steps)"
        case .writerAndReaders: return "toy-writer-readers"
        }
    }

    func makeController(
        for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
    ) -> any StressController {
        ToyController(shape: shape, sharedLock: sharedLock, sharedWord: sharedWord)
    }

    /// The object whose word the writer and readers touch.
    final class SharedObject: Sendable {}

    final class ToyController: StressController, @unchecked Sendable {
        let shape: Shape
        let sharedLock: ScheduledLock
        let ownLock = ScheduledLock(name: "toy.own")
        let sharedWord: SharedObject

        init(shape: Shape, sharedLock: ScheduledLock, sharedWord: SharedObject) {
            self.shape = shape
            self.sharedLock = sharedLock
            self.sharedWord = sharedWord
        }

        func registrationCount() -> Int? {
            switch shape {
            case .shared(let steps):
                for _ in 0..<steps { sharedLock.withLock {} }
            case .disjoint(let steps):
                for _ in 0..<steps { ownLock.withLock {} }
            case .writerAndReaders:
                ownLock.withLock { SchedulePoints.access(sharedWord, .cacheGeneration, .write) }
            }
            return nil
        }

        func isObserving(_ object: StressObject, keyPath: String) -> Bool? {
            ownLock.withLock { SchedulePoints.access(sharedWord, .cacheGeneration, .read) }
            return nil
        }

        func observe(
            _ object: StressObject, keyPath: String, options: KeyValueObservingOptions, sink: DeliverySink,
            call: StressCall
        ) -> ObserveOutcome { .unknown }
        func unobserve(_ object: StressObject, keyPath: String, call: StressCall) -> UnobserveOutcome { .unknown }
        func unobserve(_ object: StressObject, call: StressCall) -> UnobserveOutcome { .unknown }
        func unobserveAll(call: StressCall) -> Int? { nil }
    }
}

/// Toy scenarios: `workers` workers, each calling its own controller once.
enum ToyScenarios {
    /// Every worker counts registrations (takes its locks).
    static func lockSteps(workers: Int) -> Scenario {
        scenario(workers: workers) { .countRegistrations(controller: $0) }
    }

    /// Worker 0 writes the shared word, the others read it.
    static func writerAndReaders(readers: Int) -> Scenario {
        scenario(workers: readers + 1) { worker in
            worker == 0 ? .countRegistrations(controller: 0) : .isObserving(controller: worker, object: 0, key: .k0)
        }
    }

    private static func scenario(workers: Int, operation: (Int) -> Operation) -> Scenario {
        var configuration = ScenarioConfiguration()
        configuration.workers = workers
        configuration.operationsPerWorker = 1
        configuration.controllers = workers
        configuration.objects = 1
        configuration.weakHoldingEvery = 0
        return Scenario(configuration: configuration, seed: 1, operations: (0..<workers).map { [operation($0)] })
    }
}
