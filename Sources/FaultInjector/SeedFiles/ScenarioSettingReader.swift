/// Reads the value of one header line of a text scenario (`seed 5`, `weak c1 c2`, `strategy pct`) into a
/// ``ScenarioHeader``, saying at which column a value is wrong and what it must be.
struct ScenarioSettingReader {
    /// The settings read so far.
    private(set) var header: ScenarioHeader
    /// The target names a `target` line may give.
    let targets: [String]

    init(header: ScenarioHeader, targets: [String]) {
        self.header = header
        self.targets = targets
    }

    /// Reads `keyword`'s `words` (the line ends at column `end`).
    mutating func read(_ keyword: String, _ words: [OperationParser.Word], end: Int) throws(OperationSyntaxError) {
        guard let first = words.first else {
            let argument = ScenarioHeader.keywords.first { $0.keyword == keyword }?.argument ?? "a value"
            throw OperationSyntaxError(column: end, message: "\(keyword) needs \(argument) after it")
        }
        switch keyword {
        case "target": header.target = try target(one(keyword, words))
        case "seed": header.seed = try seed(one(keyword, words))
        case "objects": header.objects = try number(one(keyword, words), keyword, 1...ScenarioConfiguration.objectLimit)
        case "controllers": header.controllers = try number(one(keyword, words), keyword, 1...1_024)
        case "weak": header.weak = try weak(words)
        case "keys": header.keys = try keys(words)
        case "deinit": header.deinitCalls = try deinitCalls(words)
        case "runner": header.runner = try choice(one(keyword, words), keyword, RunnerChoice.names)
        case "strategy": header.strategy = try choice(one(keyword, words), keyword, StrategyChoice.names)
        case "depth": header.depth = try number(one(keyword, words), keyword, StrategyChoice.depths)
        case "expected-steps": header.expectedSteps = try number(one(keyword, words), keyword, 1...Schedule.maximumSteps)
        case "step-limit": header.stepLimit = try number(one(keyword, words), keyword, ControlledRunner.Settings.stepLimits)
        case "faults": header.faults = try choice(one(keyword, words), keyword, ["on", "off"]) == "on"
        case "races-initial-value":
            header.racesInitialValue = try choice(one(keyword, words), keyword, ["yes", "no"]) == "yes"
        default:
            throw OperationSyntaxError(column: first.column, message: "unknown setting \"\(keyword)\"")
        }
    }

    /// The one word a setting takes.
    private func one(_ keyword: String, _ words: [OperationParser.Word]) throws(OperationSyntaxError) -> OperationParser.Word {
        guard words.count == 1 else {
            throw OperationSyntaxError(column: words[1].column, message: "\(keyword) takes one value; unexpected \"\(words[1].text)\"")
        }
        return words[0]
    }

    private func target(_ word: OperationParser.Word) throws(OperationSyntaxError) -> String {
        guard targets.contains(word.text) else {
            if let reason = TargetCatalog.unavailableReason(for: word.text) {
                throw OperationSyntaxError(column: word.column, message: reason)
            }
            let listed = targets.filter { !TargetCatalog.testFixtureNames.contains($0) && $0 != PlantedBug.baselineName }
            throw OperationSyntaxError(
                column: word.column,
                message: "unknown target \"\(word.text)\"" + OperationParser.suggestion(word.text, listed)
                    + " (expected one of: \(listed.joined(separator: ", ")))")
        }
        return word.text
    }

    private func seed(_ word: OperationParser.Word) throws(OperationSyntaxError) -> UInt64 {
        let text = word.text.replacingOccurrences(of: "_", with: "")
        let value = text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        guard let value else {
            throw OperationSyntaxError(
                column: word.column, message: "seed needs a whole number from 0 to \(UInt64.max) (decimal or 0x hex), not \"\(word.text)\"")
        }
        return value
    }

    private func number(
        _ word: OperationParser.Word, _ keyword: String, _ range: ClosedRange<Int>
    ) throws(OperationSyntaxError) -> Int {
        guard let value = Int(word.text.replacingOccurrences(of: "_", with: "")), range.contains(value) else {
            throw OperationSyntaxError(
                column: word.column,
                message: "\(keyword) needs a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(word.text)\"")
        }
        return value
    }

    private func choice(
        _ word: OperationParser.Word, _ keyword: String, _ choices: [String]
    ) throws(OperationSyntaxError) -> String {
        guard choices.contains(word.text) else {
            throw OperationSyntaxError(
                column: word.column,
                message: "\(keyword) is one of \(choices.joined(separator: ", ")), not \"\(word.text)\""
                    + OperationParser.suggestion(word.text, choices))
        }
        return word.text
    }

    /// `weak c1 c3` (or `weak none`).
    private func weak(_ words: [OperationParser.Word]) throws(OperationSyntaxError) -> [Int] {
        if words.count == 1, words[0].text == "none" { return [] }
        var slots: [Int] = []
        for word in words {
            guard let slot = OperationParser.slot(word.text, "c"), slot < 1_024 else {
                throw OperationSyntaxError(
                    column: word.column, message: "weak names controller slots (c0, c1, ...) or none, not \"\(word.text)\"")
            }
            if !slots.contains(slot) { slots.append(slot) }
        }
        return slots.sorted()
    }

    /// `keys k0 link.gauge`.
    private func keys(_ words: [OperationParser.Word]) throws(OperationSyntaxError) -> [StressKey] {
        var keys: [StressKey] = []
        for word in words {
            guard let key = StressKey(name: word.text) else {
                let names = StressKey.allCases.map(\.name)
                throw OperationSyntaxError(
                    column: word.column,
                    message: "unknown key \"\(word.text)\"" + OperationParser.suggestion(word.text, names)
                        + " (expected one of: \(names.joined(separator: ", ")))")
            }
            guard !keys.contains(key) else {
                throw OperationSyntaxError(column: word.column, message: "keys names \(key.name) twice")
            }
            keys.append(key)
        }
        return keys
    }

    /// `deinit unobserve observe` (or `deinit none`).
    private func deinitCalls(_ words: [OperationParser.Word]) throws(OperationSyntaxError) -> [ScenarioHeader.DeinitCall] {
        if words.count == 1, words[0].text == "none" { return [] }
        var calls: [ScenarioHeader.DeinitCall] = []
        for word in words {
            guard let call = ScenarioHeader.DeinitCall(rawValue: word.text) else {
                let names = ScenarioHeader.DeinitCall.allCases.map(\.rawValue)
                throw OperationSyntaxError(
                    column: word.column,
                    message: "deinit names the calls objects make in their own deinit: \(names.joined(separator: ", ")) "
                        + "or none, not \"\(word.text)\"" + OperationParser.suggestion(word.text, names))
            }
            if !calls.contains(call) { calls.append(call) }
        }
        return calls.sorted()
    }
}
