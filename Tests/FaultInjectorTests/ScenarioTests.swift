@testable import FaultInjector
import XCTest

final class ScenarioTests: XCTestCase {
    private func configuration(workers: Int = 8, operations: Int = 300) -> ScenarioConfiguration {
        RunFixtures.configuration(workers: workers, operations: operations)
    }

    func testSameConfigurationAndSeedGiveIdenticalOperations() {
        let first = Scenario(configuration: configuration(), seed: 123)
        let second = Scenario(configuration: configuration(), seed: 123)
        XCTAssertEqual(first.operations, second.operations)
        XCTAssertEqual(first, second)
        XCTAssertEqual(first.operations.count, 8)
        XCTAssertTrue(first.operations.allSatisfy { $0.count == 300 })
        XCTAssertEqual(first.operationCount, 8 * 300)
    }

    func testDifferentSeedGivesDifferentOperations() {
        let first = Scenario(configuration: configuration(), seed: 123)
        let second = Scenario(configuration: configuration(), seed: 124)
        XCTAssertNotEqual(first.operations, second.operations)
        for worker in 0..<8 {
            XCTAssertNotEqual(first.operations[worker], second.operations[worker], "worker \(worker)")
        }
    }

    func testWorkersHaveIndependentStreams() {
        let four = Scenario(configuration: configuration(workers: 4), seed: 55)
        let eight = Scenario(configuration: configuration(workers: 8), seed: 55)
        XCTAssertEqual(Array(eight.operations.prefix(4)), four.operations)
        // Workers do not all draw the same stream.
        XCTAssertEqual(Set(eight.operations).count, 8)
    }

    func testOperationCountDoesNotChangeAWorkersPrefix() {
        let short = Scenario(configuration: configuration(operations: 50), seed: 9)
        let long = Scenario(configuration: configuration(operations: 500), seed: 9)
        for worker in 0..<8 {
            XCTAssertEqual(Array(long.operations[worker].prefix(50)), short.operations[worker])
        }
    }

    private var largeScenario: Scenario {
        Scenario(configuration: configuration(workers: 64, operations: 1_000), seed: 20_240_601)
    }

    func testMutationsNeverTargetSum() {
        var mutations = 0
        var handlerMutations = 0
        for operation in largeScenario.operations.joined() {
            switch operation {
            case .mutate(_, let key):
                mutations += 1
                XCTAssertNotEqual(key, .sum, "\(operation)")
            case .observe(_, _, _, _, .mutate(_, let key)):
                handlerMutations += 1
                XCTAssertNotEqual(key, .sum, "\(operation)")
            default:
                break
            }
        }
        XCTAssertGreaterThan(mutations, 10_000)
        XCTAssertGreaterThan(handlerMutations, 100)
    }

    func testGeneratedScenarioCoversEveryOperationAndActionAndStaysInItsSlots() {
        let scenario = largeScenario
        XCTAssertEqual(scenario.problems, [])
        var verbs = Set<String>()
        var actions = Set<String>()
        var options = Set<StressOptions>()
        for operation in scenario.operations.joined() {
            verbs.insert(String(operation.description.split(separator: " ")[0]))
            if case .observe(_, _, _, let opts, let action) = operation {
                options.insert(opts)
                actions.insert(String(action.description.split(separator: " ")[0]))
            }
        }
        XCTAssertEqual(
            verbs,
            [
                "observe", "unobserve", "double-unobserve", "unobserve-object", "unobserve-all", "mutate",
                "release-observer", "release-controller", "release-object",
            ])
        XCTAssertEqual(actions, ["none", "unobserve-self", "unobserve-all", "release-controller", "mutate", "observe"])
        XCTAssertEqual(options.count, 16, "every combination of initial/new/old/prior should be drawn")
    }

    func testEveryOperationTextRoundTrips() {
        let operations = largeScenario.operations.joined()
        var failures = 0
        for operation in operations {
            let text = operation.description
            XCTAssertFalse(text.contains("\n"))
            let parsed = Operation(text)
            if parsed != operation {
                failures += 1
                if failures < 10 { XCTFail("\"\(text)\" parsed as \(String(describing: parsed))") }
            }
        }
        XCTAssertEqual(failures, 0)
        XCTAssertEqual(operations.count, 64_000)
    }

    func testHandFormattedOperationTexts() {
        XCTAssertEqual(
            Operation("observe c3 o1 sum [initial,new] then unobserve-self"),
            .observe(controller: 3, object: 1, key: .sum, options: [.initial, .new], action: .unobserveSelf))
        XCTAssertEqual(Operation("mutate o2 k0"), .mutate(object: 2, key: .k0))
        XCTAssertEqual(Operation("release-controller c5"), .releaseController(controller: 5))
        XCTAssertEqual(
            Operation("observe c0 o0 k2 []"), .observe(controller: 0, object: 0, key: .k2, options: [], action: .none))
        XCTAssertEqual(
            Operation("observe c1 o2 k1 [new,old,prior] then mutate o4 k2"),
            .observe(controller: 1, object: 2, key: .k1, options: [.new, .old, .prior], action: .mutate(object: 4, key: .k2)))
        XCTAssertEqual(
            Operation.observe(controller: 7, object: 0, key: .k0, options: [.prior, .initial, .old, .new], action: .observe(object: 3, key: .sum))
                .description,
            "observe c7 o0 k0 [initial,new,old,prior] then observe o3 sum")
        XCTAssertEqual(Operation.doubleUnobserve(controller: 2, object: 3, key: .sum).description, "double-unobserve c2 o3 sum")
        XCTAssertEqual(Operation.unobserveObject(controller: 2, object: 3).description, "unobserve-object c2 o3")
        XCTAssertEqual(Operation.unobserveAll(controller: 11).description, "unobserve-all c11")
        XCTAssertEqual(Operation.releaseObserver(controller: 0).description, "release-observer c0")
        XCTAssertEqual(Operation.releaseObject(object: 9).description, "release-object o9")
        XCTAssertEqual(Operation.unobserve(controller: 1, object: 2, key: .k2).description, "unobserve c1 o2 k2")
    }

    func testEveryHandlerActionTextRoundTrips() {
        var actions: [HandlerAction] = [.none, .unobserveSelf, .unobserveAll, .releaseController]
        for object in [0, 1, 17] {
            for key in StressKey.stored { actions.append(.mutate(object: object, key: key)) }
            for key in StressKey.allCases { actions.append(.observe(object: object, key: key)) }
        }
        for action in actions {
            XCTAssertEqual(HandlerAction(action.description), action, "\"\(action.description)\"")
        }
        XCTAssertEqual(HandlerAction.mutate(object: 2, key: .k1).description, "mutate o2 k1")
        XCTAssertEqual(HandlerAction.observe(object: 2, key: .k0).description, "observe o2 k0")
        XCTAssertEqual(HandlerAction.unobserveSelf.description, "unobserve-self")
    }

    func testMalformedOperationTextsAreRejected() {
        let bad = [
            "",
            "   ",
            "observe c1 o2",
            "observe c1 o2 k0",
            "observe c1 o2 k0 new",
            "observe c1 o2 k0 [bogus]",
            "observe c1 o2 k0 [new",
            "observe c-1 o0 k0 []",
            "observe c1 o-2 k0 []",
            "observe o1 c2 k0 []",
            "observe c1 o2 k7 []",
            "observe c1 o2 k0 [] then",
            "observe c1 o2 k0 [] also unobserve-self",
            "observe c1 o2 k0 [] then dance",
            "observe c1 o2 k0 [] then mutate o1 sum",
            "observe c1 o2 k0 [] then mutate c1 k0",
            "observe c1 o2 k0 [] then observe o1 k0 extra",
            "observe cx o2 k0 []",
            "observe c99999999999999999999 o0 k0 []",
            "mutate o1 sum",
            "mutate o1",
            "mutate c1 k0",
            "mutate o1 k0 extra",
            "unobserve c1 o2 k9",
            "unobserve c1 o2",
            "unobserve c1 c2 k0",
            "double-unobserve c1 o2",
            "unobserve-object c1",
            "unobserve-object o1 c1",
            "unobserve-all",
            "unobserve-all c",
            "unobserve-all o1",
            "release-observer o1",
            "release-controller c1 c2",
            "release-object c1",
            "UNOBSERVE-ALL c1",
            "frobnicate c1",
        ]
        for text in bad {
            XCTAssertNil(Operation(text), "\"\(text)\" should not parse")
        }
    }

    func testMalformedHandlerActionTextsAreRejected() {
        for text in ["", "nothing", "none none", "mutate o1 sum", "mutate o1", "observe o-1 k0", "observe c1 k0", "unobserve-self now"] {
            XCTAssertNil(HandlerAction(text), "\"\(text)\" should not parse")
        }
    }

    func testStressOptionsText() {
        XCTAssertEqual(StressOptions([]).text, "[]")
        XCTAssertEqual(StressOptions([.prior, .new]).text, "[new,prior]")
        for raw in UInt8(0)..<16 {
            let options = StressOptions(rawValue: raw)
            XCTAssertEqual(StressOptions(text: options.text), options)
        }
        XCTAssertNil(StressOptions(text: "new"))
        XCTAssertNil(StressOptions(text: "[new,bogus]"))
    }

    func testScenarioProblemsNameSlotsBeyondTheConfiguration() {
        var config = configuration(workers: 2, operations: 0)
        config.controllers = 3
        config.objects = 2
        let fine = Scenario(configuration: config, seed: 1, operations: [[.mutate(object: 1, key: .k0)], [.unobserveAll(controller: 2)]])
        XCTAssertEqual(fine.problems, [])
        let beyondObject = Scenario(configuration: config, seed: 1, operations: [[.mutate(object: 2, key: .k0)], []])
        XCTAssertEqual(beyondObject.problems.count, 1)
        XCTAssertTrue(beyondObject.problems[0].contains("mutate o2 k0"), beyondObject.problems[0])
        let beyondController = Scenario(configuration: config, seed: 1, operations: [[], [.releaseController(controller: 3)]])
        XCTAssertEqual(beyondController.problems.count, 1)
        let beyondInAction = Scenario(
            configuration: config, seed: 1,
            operations: [[.observe(controller: 0, object: 0, key: .k0, options: [], action: .observe(object: 5, key: .k1))], []])
        XCTAssertEqual(beyondInAction.problems.count, 1)
        let wrongWorkers = Scenario(configuration: config, seed: 1, operations: [[]])
        XCTAssertEqual(wrongWorkers.problems, ["the scenario lists 1 workers but its configuration has 2"])
    }

    func testDefaultConfigurationHasNoProblems() {
        XCTAssertEqual(ScenarioConfiguration().problems, [])
        let defaults = ScenarioConfiguration()
        XCTAssertEqual(defaults.workers, 64)
        XCTAssertEqual(defaults.operationsPerWorker, 1_000)
    }

    func testConfigurationProblemsReportBadValues() {
        func problems(_ edit: (inout ScenarioConfiguration) -> Void) -> [String] {
            var configuration = ScenarioConfiguration()
            edit(&configuration)
            return configuration.problems
        }
        let workers = problems { $0.workers = 0 }
        XCTAssertEqual(workers.count, 1)
        XCTAssertTrue(workers[0].contains("workers"), workers[0])
        XCTAssertEqual(problems { $0.workers = 5_000 }.count, 1)
        XCTAssertEqual(problems { $0.objects = 0 }.count, 1)
        XCTAssertEqual(problems { $0.controllers = -1 }.count, 1)
        XCTAssertEqual(problems { $0.operationsPerWorker = -1 }.count, 1)
        XCTAssertEqual(problems { $0.weakHoldingEvery = -2 }.count, 1)
        let negativeWeight = problems { $0.mix[.mutate] = -1 }
        XCTAssertEqual(negativeWeight.count, 1)
        XCTAssertTrue(negativeWeight[0].contains("operation mix"), negativeWeight[0])
        XCTAssertEqual(problems { $0.mix = zeroMix() }.count, 1)
        XCTAssertEqual(problems { $0.actions.observe = -3 }.count, 1)
        let probability = problems { $0.optionProbability = 2 }
        XCTAssertEqual(probability.count, 1)
        XCTAssertTrue(probability[0].contains("optionProbability"), probability[0])
        let fault = problems { $0.faults.yieldProbability = 2 }
        XCTAssertEqual(fault.count, 1)
        XCTAssertTrue(fault[0].contains("yieldProbability"), fault[0])
        XCTAssertEqual(problems { $0.faults.sleepProbability = -0.1 }.count, 1)
        XCTAssertEqual(problems { $0.faults.maxSpinIterations = -1 }.count, 1)
        XCTAssertEqual(problems { $0.faults.maxSleepMicroseconds = 2_000_000 }.count, 1)
        XCTAssertEqual(problems { $0.optionProbability = .nan }.count, 1, "NaN is not a probability")
        let several = problems {
            $0.workers = 0
            $0.mix[.observe] = -1
            $0.optionProbability = 2
        }
        XCTAssertEqual(several.count, 3, "\(several)")
    }

    private func zeroMix() -> OperationMix {
        var mix = OperationMix()
        mix[.observe] = 0
        mix[.observeInitial] = 0
        mix[.unobserve] = 0
        mix[.doubleUnobserve] = 0
        mix[.unobserveObject] = 0
        mix[.unobserveAll] = 0
        mix[.mutate] = 0
        mix[.releaseObserver] = 0
        mix[.releaseController] = 0
        mix[.releaseObject] = 0
        return mix
    }

    func testHoldsWeakly() {
        let configuration = ScenarioConfiguration()  // every 4th slot, counting from slot 3
        XCTAssertEqual((0..<8).filter { configuration.holdsWeakly(controller: $0) }, [3, 7])
        var none = configuration
        none.weakHoldingEvery = 0
        XCTAssertEqual((0..<8).filter { none.holdsWeakly(controller: $0) }, [])
    }
}
