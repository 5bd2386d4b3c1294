import GuardCore

/// The systems under test that seed files and the command line can name.
public enum TargetCatalog {
    /// Every known target name.
    public static let names = ["guard", "raw"]

    /// The target called `name`; guard diagnostics go to `diagnostics`. `nil` for an unknown name.
    public static func make(_ name: String, diagnostics: any DiagnosticSink) -> (any SystemUnderTest)? {
        switch name {
        case "guard": return GuardTarget(diagnostics: diagnostics)
        case "raw": return RawRuntimeTarget()
        default: return nil
        }
    }
}
