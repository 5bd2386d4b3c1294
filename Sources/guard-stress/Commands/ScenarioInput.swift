import FaultInjector

/// Reads the file a command was handed: a JSON seed file or a text scenario (``ScenarioFile``), whichever it is.
enum ScenarioInput {
    /// The scenario at `path`, or `nil` after printing why it cannot be used (for a mistake in a text scenario, its
    /// line with a caret under the column).
    static func load(_ path: String) -> LoadedScenario? {
        do {
            return try ScenarioFile.load(path)
        } catch {
            Terminal.printError("guard-stress: \(error.detailedDescription)")
            return nil
        }
    }

    /// `a text scenario` or `a seed file`.
    static func kind(_ loaded: LoadedScenario) -> String {
        loaded.isText ? "a text scenario" : "a seed file"
    }
}
