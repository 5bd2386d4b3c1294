import FaultInjector

/// The edits the shrinker tries on a scenario. Each keeps the seed and the configuration's mixes and faults, and
/// adjusts the counts (workers, operations per worker, slots) to what the operations use; ``isUsable`` says whether
/// the result could be written as a seed file.
extension Scenario {
    /// The scenario with `operations` instead (workers and operations per worker follow them).
    func replacingOperations(_ operations: [[Operation]]) -> Scenario {
        var configuration = self.configuration
        configuration.workers = operations.count
        configuration.operationsPerWorker = operations.map(\.count).max() ?? 0
        return Scenario(configuration: configuration, seed: seed, operations: operations)
    }

    /// Whether the scenario makes a valid seed file (at least one worker, slots within the configuration).
    var isUsable: Bool {
        !operations.isEmpty && configuration.problems.isEmpty && problems.isEmpty
    }

    /// The operations' texts, rewritten by `rewrite`; `nil` if a rewritten text is not an operation.
    func rewritingTexts(_ rewrite: (OperationText) -> OperationText) -> [[Operation]]? {
        var rewritten: [[Operation]] = []
        for list in operations {
            var newList: [Operation] = []
            for operation in list {
                guard let new = rewrite(OperationText(operation)).operation else { return nil }
                newList.append(new)
            }
            rewritten.append(newList)
        }
        return rewritten
    }

    /// The slot numbers named with `prefix` anywhere, ascending.
    func usedSlots(_ prefix: Character) -> [Int] {
        Set(operations.flatMap { $0.flatMap { OperationText($0).slots(prefix) } }).sorted()
    }

    /// The key names used anywhere, in the order of ``StressKey/allCases``.
    var usedKeys: [String] {
        let used = Set(operations.flatMap { $0.flatMap { OperationText($0).keys } })
        return StressKey.allCases.map(\.name).filter(used.contains)
    }

    /// The scenario with slot `prefix<from>` merged into `prefix<into>`; `nil` if that makes an invalid operation.
    func mergingSlot(_ prefix: Character, _ from: Int, into: Int) -> Scenario? {
        rewritingTexts { $0.renaming(prefix, [from: into]) }.map(replacingOperations)
    }

    /// The scenario with key `old` replaced by `new`; `nil` if that makes an invalid operation.
    func replacingKey(_ old: String, with new: String) -> Scenario? {
        rewritingTexts { $0.renamingKey(old, to: new) }.map(replacingOperations)
    }

    /// Used slots renumbered densely from 0 (keeping their order) and the slot counts cut to what is used.
    func compacted() -> Scenario? {
        let controllers = usedSlots("c")
        let objects = usedSlots("o")
        let controllerMap = Dictionary(uniqueKeysWithValues: controllers.enumerated().map { ($1, $0) })
        let objectMap = Dictionary(uniqueKeysWithValues: objects.enumerated().map { ($1, $0) })
        guard let operations = rewritingTexts({ $0.renaming("c", controllerMap).renaming("o", objectMap) }) else {
            return nil
        }
        var result = replacingOperations(operations)
        var configuration = result.configuration
        configuration.controllers = max(1, controllers.count)
        configuration.objects = max(1, objects.count)
        // A listed weak controller stays weak under its new number.
        configuration.weakControllers = configuration.weakControllers.map { $0.compactMap { controllerMap[$0] }.sorted() }
        result = Scenario(configuration: configuration, seed: seed, operations: operations)
        return result
    }

    /// The slot counts cut to the highest slot used, without renumbering (controller slots keep whether they hold
    /// objects weakly).
    func truncatingSlots() -> Scenario {
        var configuration = self.configuration
        configuration.controllers = max(1, (usedSlots("c").last ?? -1) + 1)
        configuration.objects = max(1, (usedSlots("o").last ?? -1) + 1)
        configuration.weakControllers = configuration.weakControllers?.filter { $0 < configuration.controllers }
        return Scenario(configuration: configuration, seed: seed, operations: operations)
    }

    /// The number of distinct slots and keys the operations name: a measure of how much a reader must keep apart.
    var namedThings: Int {
        usedSlots("c").count + usedSlots("o").count + usedKeys.count
    }

    /// The length of all operation texts: the last tie-breaker for "smaller".
    var textLength: Int {
        operations.reduce(0) { $0 + $1.reduce(0) { $0 + $1.description.count } }
    }
}
