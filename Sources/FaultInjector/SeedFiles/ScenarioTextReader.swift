/// Reads a text scenario line by line: header lines (`target raw`, `weak c1`, ...), then `worker N:` lines each
/// followed by that worker's operations, one per line, in the grammar of seed files' operation texts. Blank lines
/// and `#` comments (to the end of a line, except in a `description` line) are ignored; indentation is free.
///
/// Every mistake is reported at its line and column, with what was expected.
struct ScenarioTextReader {
    /// An operation with where it was written.
    struct Placed {
        let operation: Operation
        let line: Int
        let column: Int
    }

    private let path: String
    private let lines: [String]
    private let targets: [String]
    private var header = ScenarioHeader()
    private var settingLines: [String: Int] = [:]
    private var workers: [[Placed]] = []
    private var workerLines: [Int] = []

    /// A reader of `text`, from the file `path`, whose `target` line must name one of `targets`.
    init(_ text: String, path: String, targets: [String]) {
        self.path = path
        self.targets = targets
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.last == "\r" ? String(line.dropLast()) : String(line)
        }
    }

    /// The scenario, with its settings.
    mutating func read() throws(ScenarioFileError) -> (header: ScenarioHeader, scenario: Scenario, placed: [[Placed]]) {
        for (index, line) in lines.enumerated() {
            try readLine(line, number: index + 1)
        }
        guard !workers.isEmpty else {
            throw syntax(line: 1, column: 1, "the scenario has no workers: start each worker's operations with a line `worker 0:`, `worker 1:`, ...")
        }
        try checkSettings()
        let operations = workers.map { $0.map(\.operation) }
        try checkSlots(operations)
        let configuration = header.configuration(for: operations)
        let scenario = Scenario(configuration: configuration, seed: header.seed, operations: operations)
        if let problem = (configuration.problems + scenario.problems).first {
            throw syntax(line: workerLines.last ?? 1, column: 1, "the scenario cannot run: \(problem)")
        }
        return (header, scenario, workers)
    }

    // MARK: Lines

    private mutating func readLine(_ line: String, number: Int) throws(ScenarioFileError) {
        guard let start = line.firstIndex(where: { $0 != " " && $0 != "\t" }), line[start] != "#" else { return }
        let column = line.distance(from: line.startIndex, to: start) + 1
        let keyword = String(line[start...].prefix(while: { $0 != " " && $0 != "\t" }))
        if keyword == "description" {
            try readDescription(line, keywordColumn: column, number: number)
            return
        }
        // Nothing in the grammar uses `#`: it starts a comment.
        let content = line[start...].prefix(while: { $0 != "#" })
        if keyword == "worker" {
            try readWorker(content, column: column, number: number)
        } else if ScenarioHeader.keywords.contains(where: { $0.keyword == keyword }) {
            guard workers.isEmpty else {
                throw syntax(line: number, column: column, "settings come before the workers (worker 0 starts on line \(workerLines[0])): move \"\(keyword)\" up")
            }
            guard settingLines[keyword] == nil else {
                throw syntax(line: number, column: column, "\"\(keyword)\" is given twice (first on line \(settingLines[keyword]!)); give it once")
            }
            settingLines[keyword] = number
            let words = Self.words(content.dropFirst(keyword.count), column: column + keyword.count)
            try readSetting(keyword, words, line: number, end: column + content.count)
        } else if OperationParser.verbs.contains(keyword) || !workers.isEmpty {
            guard !workers.isEmpty else {
                throw syntax(line: number, column: column, "an operation before the first worker: operations belong to a worker, so start them with a line `worker 0:`")
            }
            let operation: Operation
            do {
                operation = try OperationParser.operation(content, column: column)
            } catch {
                throw syntax(line: number, column: error.column, error.message)
            }
            if let problem = operation.problem { throw syntax(line: number, column: column, problem) }
            workers[workers.count - 1].append(Placed(operation: operation, line: number, column: column))
        } else {
            let known = ScenarioHeader.keywords.map(\.keyword) + ["worker"] + OperationParser.verbs
            throw syntax(line: number, column: column, "unknown setting or operation \"\(keyword)\""
                + OperationParser.suggestion(keyword, known)
                + " (expected a setting such as target or weak, a line `worker N:`, or an operation such as observe)")
        }
    }

    private mutating func readDescription(_ line: String, keywordColumn: Int, number: Int) throws(ScenarioFileError) {
        guard workers.isEmpty else {
            throw syntax(line: number, column: keywordColumn, "settings come before the workers (worker 0 starts on line \(workerLines[0])): move \"description\" up")
        }
        guard settingLines["description"] == nil else {
            throw syntax(line: number, column: keywordColumn, "\"description\" is given twice (first on line \(settingLines["description"]!)); give it once")
        }
        settingLines["description"] = number
        let text = line.dropFirst(keywordColumn - 1 + "description".count)[...].trimmingSpaces
        guard !text.isEmpty else {
            throw syntax(line: number, column: keywordColumn, "description needs the text of one line after it")
        }
        header.description = text
    }

    /// `worker N:` (the colon may be left out); workers are numbered from 0, in order.
    private mutating func readWorker(_ content: Substring, column: Int, number: Int) throws(ScenarioFileError) {
        let words = Self.words(content, column: column)
        let expected = workers.count
        var text = words.dropFirst().map(\.text).joined()
        if text.hasSuffix(":") { text.removeLast() }
        let at = words.count > 1 ? words[1].column : column
        guard let index = Int(text), text.allSatisfy(\.isNumber) else {
            throw syntax(line: number, column: at, "expected `worker \(expected):` (workers are numbered from 0, in order)")
        }
        guard index == expected else {
            throw syntax(line: number, column: at, "expected worker \(expected) here, found worker \(index) (workers are numbered from 0, in order)")
        }
        workers.append([])
        workerLines.append(number)
    }

    /// Settings that do not fit together: a schedule's settings for a chaos run, PCT's for random.
    private func checkSettings() throws(ScenarioFileError) {
        func at(_ keyword: String) -> (line: Int, column: Int)? {
            guard let line = settingLines[keyword] else { return nil }
            let text = lines[line - 1]
            return (line, (text.firstIndex { $0 != " " && $0 != "\t" }).map { text.distance(from: text.startIndex, to: $0) + 1 } ?? 1)
        }
        if header.runner == "chaos" {
            for keyword in ["strategy", "depth", "expected-steps", "step-limit"] {
                guard let place = at(keyword) else { continue }
                throw syntax(line: place.line, column: place.column, "\(keyword) needs runner controlled: a chaos run has no schedule")
            }
        } else if header.strategy == "random" {
            for keyword in ["depth", "expected-steps"] {
                guard let place = at(keyword) else { continue }
                let how = settingLines["strategy"] == nil ? " by default; add a line `strategy pct`" : ""
                throw syntax(line: place.line, column: place.column, "\(keyword) belongs to strategy pct (this scenario's strategy is random\(how))")
            }
        }
    }

    // MARK: Slots

    /// Slots beyond a stated `objects` or `controllers` count, and `weak` slots beyond the controllers.
    private func checkSlots(_ operations: [[Operation]]) throws(ScenarioFileError) {
        for placed in workers.joined() {
            let used = placed.operation.slotsUsed
            if let objects = header.objects, used.object >= objects {
                throw syntax(line: placed.line, column: column(of: "o\(used.object)", in: placed),
                    "o\(used.object) is beyond the \(objects) object slot\(objects == 1 ? "" : "s") line \(settingLines["objects"]!) declares (o0 to o\(objects - 1))")
            }
            if let controllers = header.controllers, used.controller >= controllers {
                throw syntax(line: placed.line, column: column(of: "c\(used.controller)", in: placed),
                    "c\(used.controller) is beyond the \(controllers) controller slot\(controllers == 1 ? "" : "s") line \(settingLines["controllers"]!) declares (c0 to c\(controllers - 1))")
            }
        }
        if let controllers = header.controllers, let slot = header.weak.first(where: { $0 >= controllers }), let line = settingLines["weak"] {
            throw syntax(line: line, column: 1, "c\(slot) is beyond the \(controllers) controller slots line \(settingLines["controllers"]!) declares (c0 to c\(controllers - 1))")
        }
    }

    /// The column of the word `word` in `placed`'s line (its operation's column when it is not there).
    private func column(of word: String, in placed: Placed) -> Int {
        let line = lines[placed.line - 1]
        for found in Self.words(line[...], column: 1) where found.text == word { return found.column }
        return placed.column
    }

    // MARK: Helpers

    /// The words of `text` (separated by spaces and tabs), `text` starting at `column`.
    static func words(_ text: Substring, column: Int) -> [OperationParser.Word] {
        var words: [OperationParser.Word] = []
        var current = ""
        var start = column
        var col = column
        for character in text {
            if character == " " || character == "\t" {
                if !current.isEmpty { words.append(.init(text: current, column: start)) }
                current = ""
            } else {
                if current.isEmpty { start = col }
                current.append(character)
            }
            col += 1
        }
        if !current.isEmpty { words.append(.init(text: current, column: start)) }
        return words
    }

    func syntax(line: Int, column: Int, _ message: String) -> ScenarioFileError {
        .syntax(path: path, line: line, column: column, message: message, source: line <= lines.count ? lines[line - 1] : "")
    }

    // MARK: Settings

    private mutating func readSetting(
        _ keyword: String, _ words: [OperationParser.Word], line: Int, end: Int
    ) throws(ScenarioFileError) {
        var settings = ScenarioSettingReader(header: header, targets: targets)
        do {
            try settings.read(keyword, words, end: end)
        } catch {
            throw syntax(line: line, column: error.column, error.message)
        }
        header = settings.header
    }
}
