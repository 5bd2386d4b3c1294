@testable import FaultInjector
import FaultInjectorTestSupport
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
                "observe", "unobserve", "double-unobserve", "unobserve-object", "unobserve-all", "mutate", "link",
                "announce", "insert", "remove", "replace", "count", "is-observing", "observed-key-paths",
                "release-observer", "release-controller", "release-object",
            ])
        XCTAssertEqual(
            actions, ["none", "unobserve-self", "unobserve-all", "release-controller", "mutate", "observe", "adopt"])
        XCTAssertEqual(options.count, 16, "every combination of initial/new/old/prior should be drawn")
        var forms = Set<String>()
        var keys = Set<StressKey>()
        var typedKeys = Set<StressTypedKey>()
        var links = Set<String>()
        for operation in scenario.operations.joined() {
            switch operation {
            case .observe(_, _, let key, _, _): keys.insert(key)
            case .observeForwarding(_, _, let key, _, let context, _):
                forms.insert("context \(context)")
                keys.insert(key)
            case .observeTyped(_, _, let key, _, _): typedKeys.insert(key)
            case .unobserveContext: forms.insert("unobserve context")
            case .unobserveTyped: forms.insert("unobserve typed")
            case .link(_, let target): links.insert(target.text.hasPrefix("o") ? "object" : target.text)
            case .announce(_, let nested): forms.insert(nested ? "nested announce" : "announce")
            default: break
            }
        }
        XCTAssertEqual(forms, ["context 1", "context 2", "context 3", "unobserve context", "unobserve typed", "announce", "nested announce"])
        XCTAssertEqual(keys, Set(StressKey.widened + StressKey.spelledApart), "observes draw every key the default configuration names")
        XCTAssertEqual(typedKeys, Set(StressTypedKey.allCases), "typed observes draw every key path")
        XCTAssertEqual(links, ["object", "nil", "stranger"])
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

    func testHandFormattedTextsOfTheWidenedOperations() {
        var pairs: [(String, FaultInjector.Operation)] = []
        pairs.append(("observe c1 o2 link.k0 [new,old] context 3 then adopt o4", .observeForwarding(controller: 1, object: 2, key: .linkK0, options: [.new, .old], context: 3, action: .adopt(object: 4))))
        pairs.append(("observe c0 o1 \\.peer!.k0 [initial,new]", .observeTyped(controller: 0, object: 1, key: .peerForced, options: [.initial, .new], action: .none)))
        pairs.append(("observe c0 o1 \\.peer?.k0 [] then unobserve-self", .observeTyped(controller: 0, object: 1, key: .peerOptional, options: [], action: .unobserveSelf)))
        pairs.append(("observe c2 o0 delegate [initial]", .observe(controller: 2, object: 0, key: .delegate, options: [.initial], action: .none)))
        pairs.append(("unobserve c1 o2 linked context 1", .unobserveContext(controller: 1, object: 2, key: .linked, context: 1)))
        pairs.append(("unobserve c1 o2 \\.sum", .unobserveTyped(controller: 1, object: 2, key: .sum)))
        pairs.append(("link o0 o3", .link(object: 0, to: .object(3))))
        pairs.append(("link o0 nil", .link(object: 0, to: .none)))
        pairs.append(("link o2 stranger", .link(object: 2, to: .stranger)))
        pairs.append(("announce o1 level", .announce(object: 1, nested: false)))
        pairs.append(("announce o1 level around insert items", .announce(object: 1, nested: true)))
        pairs.append(("insert o0 items", .changeItems(object: 0, change: .insert)))
        pairs.append(("remove o0 items", .changeItems(object: 0, change: .remove)))
        pairs.append(("replace o0 items", .changeItems(object: 0, change: .replace)))
        pairs.append(("count c4", .countRegistrations(controller: 4)))
        pairs.append(("is-observing c1 o2 items", .isObserving(controller: 1, object: 2, key: .items)))
        pairs.append(("observed-key-paths c1 o2", .observedKeyPaths(controller: 1, object: 2)))
        for (text, operation) in pairs {
            XCTAssertEqual(Operation(text), operation, text)
            XCTAssertEqual(operation.description, text)
        }
        XCTAssertEqual(StressTypedKey.allCases.map(\.text), ["\\.k0", "\\.k1", "\\.k2", "\\.sum", "\\.peer!.k0", "\\.peer?.k0"])
        XCTAssertEqual(StressTypedKey.allCases.map(\.named), [.k0, .k1, .k2, nil, .peerK0, .peerK0])
    }

    /// Each kind of the mix, alone, draws only operations of that kind: the drawer's choices are keyed by the
    /// ``OperationKind``, not by positions in a list of weights.
    func testEachKindAloneDrawsOnlyItsOwnOperations() {
        for kind in OperationKind.allCases {
            var configuration = configuration(workers: 1, operations: 200)
            configuration.mix = .none
            configuration.mix[kind] = 1
            let operations = Scenario(configuration: configuration, seed: 77).operations[0]
            for operation in operations {
                XCTAssertEqual(Self.kind(of: operation), kind, "\(kind) drew \(operation)")
            }
        }
    }

    private static func kind(of operation: FaultInjector.Operation) -> OperationKind {
        switch operation {
        case .observe(_, _, _, let options, _): return options.contains(.initial) ? .observeInitial : .observe
        case .observeForwarding: return .observeForwarding
        case .observeTyped: return .observeTyped
        case .unobserve: return .unobserve
        case .unobserveContext: return .unobserveContext
        case .unobserveTyped: return .unobserveTyped
        case .doubleUnobserve: return .doubleUnobserve
        case .unobserveObject: return .unobserveObject
        case .unobserveAll: return .unobserveAll
        case .mutate(_, let key): return key == .gauge ? .setGauge : .mutate
        case .link: return .link
        case .announce: return .announce
        case .changeItems: return .changeItems
        case .countRegistrations: return .countRegistrations
        case .isObserving: return .isObserving
        case .observedKeyPaths: return .observedKeyPaths
        case .releaseObserver: return .releaseObserver
        case .releaseController: return .releaseController
        case .releaseObject: return .releaseObject
        }
    }

    /// A configuration written before the widened operations (no `keys`, no weights for the new kinds, no `adopt`
    /// action) reads as the classic keys and zero weights, and draws only the classic operations.
    func testAConfigurationFromBeforeTheWidenedOperationsDrawsOnlyClassicOperations() throws {
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(configuration())) as! [String: Any]
        json["keys"] = nil
        var mix = json["mix"] as! [String: Any]
        for kind in OperationKind.allCases.dropFirst(10) { mix[kind.rawValue] = nil }
        json["mix"] = mix
        var actions = json["actions"] as! [String: Any]
        actions["adopt"] = nil
        json["actions"] = actions
        let old = try JSONDecoder().decode(
            ScenarioConfiguration.self, from: JSONSerialization.data(withJSONObject: json))
        XCTAssertEqual(old.keys, StressKey.classic)
        XCTAssertEqual(old.actions.adopt, 0)
        for kind in OperationKind.allCases.dropFirst(10) { XCTAssertEqual(old.mix[kind], 0, "\(kind)") }
        for operation in Scenario(configuration: old, seed: 5).operations.joined() {
            let kind = Self.kind(of: operation)
            XCTAssertTrue(OperationKind.allCases.prefix(10).contains(kind), "\(operation)")
            if case .observe(_, _, let key, _, let action) = operation {
                XCTAssertTrue(StressKey.classic.contains(key), "\(operation)")
                if case .adopt = action { XCTFail("\(operation)") }
            }
        }
    }

    func testMixTextParsesAndRejectsBadInput() throws {
        let mix = try OperationMix(parsing: "observe=3,unobserve=2,link=1")
        XCTAssertEqual(mix[.observe], 3)
        XCTAssertEqual(mix[.unobserve], 2)
        XCTAssertEqual(mix[.link], 1)
        XCTAssertEqual(mix[.mutate], 0, "kinds not named get 0")
        XCTAssertEqual(mix.text, "observe=3,unobserve=2,link=1")
        for (text, phrase) in [
            ("observe=3,bogus=1", "unknown operation 'bogus'"), ("observe", "is not NAME=WEIGHT"), ("=3", "is not NAME=WEIGHT"),
            ("observe=-1", "whole number"), ("observe=x", "whole number"), ("observe=0", "at least one weight"),
            ("observe=1,observe=2", "given twice"), ("", "is not NAME=WEIGHT"), ("observe=1,", "is not NAME=WEIGHT"),
        ] {
            XCTAssertThrowsError(try OperationMix(parsing: text), text) { error in
                XCTAssertTrue("\(error)".contains(phrase), "\(text): \(error)")
            }
        }
    }

    func testEveryProfileIsUsableAndTheLongLivedOnesBuildUpState() {
        for profile in ScenarioProfile.allCases {
            for controlled in [false, true] {
                XCTAssertEqual(profile.configuration(controlled: controlled).problems, [], "\(profile) controlled=\(controlled)")
            }
            XCTAssertFalse(profile.summary.isEmpty)
        }
        for profile in [ScenarioProfile.longLived, .crowd] {
            let configuration = profile.configuration()
            XCTAssertGreaterThanOrEqual(configuration.objects, 1_000, "\(profile)")
            XCTAssertEqual(configuration.mix[.releaseController], 0, "\(profile): controllers live the whole round")
            XCTAssertEqual(configuration.mix[.releaseObserver], 0, "\(profile)")
            XCTAssertGreaterThanOrEqual(configuration.workers * configuration.operationsPerWorker, 50_000, "\(profile)")
        }
        XCTAssertEqual(ScenarioProfile.mixed.configuration(), ScenarioConfiguration())
        XCTAssertEqual(ScenarioProfile.mixed.configuration(controlled: true), .controlledDefault)
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
            "observe c1 o2 k0 [] context",
            "observe c1 o2 k0 [] context x",
            "observe c1 o2 k0 [] context -1",
            "observe c1 o2 \\.k0 [] context 1",
            "observe c1 o2 \\.nope []",
            "observe c1 o2 k0 [] then adopt",
            "observe c1 o2 k0 [] then adopt c1",
            "observe c1 o2 k0 [] then adopt o1 o2",
            "unobserve c1 o2 k0 context",
            "unobserve c1 o2 \\.k0 context 1",
            "unobserve c1 o2 k0 extra",
            "mutate o1 level",
            "mutate o1 link.k0",
            "link o1",
            "link o1 o2 extra",
            "link o1 maybe",
            "link c1 o2",
            "announce o1",
            "announce o1 k0",
            "announce o1 level around",
            "announce o1 level around insert",
            "announce o1 level around remove items",
            "insert o1",
            "insert o1 level",
            "shuffle o1 items",
            "count",
            "count o1",
            "is-observing c1 o1",
            "is-observing c1 o1 k9",
            "observed-key-paths c1",
            "observed-key-paths c1 o1 k0",
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
        var config = configuration(workers: 2, operations: 1)
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
        let beyondLink = Scenario(configuration: config, seed: 1, operations: [[.link(object: 0, to: .object(2))], []])
        XCTAssertEqual(beyondLink.problems.count, 1)
        let backwardLink = Scenario(configuration: config, seed: 1, operations: [[.link(object: 1, to: .object(0))], []])
        XCTAssertEqual(backwardLink.problems.count, 1)
        XCTAssertTrue(backwardLink.problems[0].contains("later object slot"), backwardLink.problems[0])
        let selfLink = Scenario(configuration: config, seed: 1, operations: [[.link(object: 1, to: .object(1))], []])
        XCTAssertEqual(selfLink.problems.count, 1)
        let badContext = Scenario(
            configuration: config, seed: 1,
            operations: [[.unobserveContext(controller: 0, object: 0, key: .k0, context: 4)], []])
        XCTAssertEqual(badContext.problems.count, 1)
        XCTAssertTrue(badContext.problems[0].contains("contexts are numbered 1 to 3"), badContext.problems[0])
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
        XCTAssertEqual(problems { $0.mix = .none }.count, 1)
        XCTAssertEqual(problems { $0.keys = [] }.count, 1)
        XCTAssertEqual(problems { $0.keys = [.k0, .k0] }.count, 1)
        XCTAssertEqual(problems { $0.objects = ScenarioConfiguration.objectLimit }.count, 0)
        XCTAssertEqual(problems { $0.objects = ScenarioConfiguration.objectLimit + 1 }.count, 1)
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

    func testHoldsWeakly() {
        let configuration = ScenarioConfiguration()  // every 4th slot, counting from slot 3
        XCTAssertEqual((0..<8).filter { configuration.holdsWeakly(controller: $0) }, [3, 7])
        var none = configuration
        none.weakHoldingEvery = 0
        XCTAssertEqual((0..<8).filter { none.holdsWeakly(controller: $0) }, [])
    }
}
