import GuardCore

/// The systems under test that seed files and the command line can name.
public enum TargetCatalog {
    /// Every target name shown to people.
    public static let names = ["guard", "raw"]

    /// Targets that exist only to test the harness itself (``CrashFixtureTarget``: they segfault, trap or hang on
    /// purpose). Accepted by name, never listed.
    public static let testFixtureNames = CrashFixtureTarget.Failure.allCases.map { "fixture-\($0.rawValue)" }

    /// Every name ``make(_:diagnostics:)`` accepts: ``names`` and ``testFixtureNames``.
    public static var knownNames: [String] { names + testFixtureNames }

    /// The target called `name`; guard diagnostics go to `diagnostics`. `nil` for an unknown name.
    public static func make(_ name: String, diagnostics: any DiagnosticSink) -> (any SystemUnderTest)? {
        switch name {
        case "guard": return GuardTarget(diagnostics: diagnostics)
        case "raw": return RawRuntimeTarget()
        default: return CrashFixtureTarget(name: name, diagnostics: diagnostics)
        }
    }
}
