import GuardCore

/// The systems under test that seed files and the command line can name.
public enum TargetCatalog {
    /// Every target name this build can run: `guard`, `raw`, `token`, and `nsobject` on Apple platforms.
    public static let names: [String] = {
        var names = ["guard", "raw", "token"]
        #if canImport(ObjectiveC)
        names.append("nsobject")
        #endif
        return names
    }()

    /// Why `name` cannot run in this build although it is a target elsewhere; `nil` for a runnable or unknown name.
    public static func unavailableReason(for name: String) -> String? {
        #if !canImport(ObjectiveC)
        if name == "nsobject" {
            return "target nsobject puts the guard in front of Foundation's own KVO and needs the Objective-C runtime: "
                + "run it on macOS (or another Apple platform); this build has only \(names.joined(separator: ", "))"
        }
        #endif
        return nil
    }

    /// Targets that exist only to test the harness itself (``CrashFixtureTarget``: they segfault, trap or hang on
    /// purpose). Accepted by name, never listed.
    public static let testFixtureNames = CrashFixtureTarget.Failure.allCases.map { "fixture-\($0.rawValue)" }

    /// The planted bugs (``PlantedBug``: deliberately broken systems that prove the harness can see), accepted by
    /// name and listed here, not in ``names``: `guard-stress mutants` runs them, and seed files naming them replay.
    public static let plantedBugNames = PlantedBug.allCases.map(\.rawValue)

    /// Every name ``make(_:diagnostics:)`` accepts: ``names``, ``plantedBugNames``, the planted bugs' unmodified
    /// baseline and ``testFixtureNames``.
    public static var knownNames: [String] { names + plantedBugNames + [PlantedBug.baselineName] + testFixtureNames }

    /// The target called `name`; guard diagnostics go to `diagnostics`. `nil` for an unknown or unavailable name. The
    /// default ``TargetFactory`` of ``Campaign/Settings/makeTarget`` and ``RoundServer/serve(makeTarget:)``.
    public static func make(_ name: String, diagnostics: any DiagnosticSink) -> (any SystemUnderTest)? {
        switch name {
        case "guard": return GuardTarget(diagnostics: diagnostics)
        case "raw": return RawRuntimeTarget()
        case "token": return TokenTarget(diagnostics: diagnostics)
        #if canImport(ObjectiveC)
        case "nsobject": return MirroredGuardTarget(model: NSObjectTwinModel(), diagnostics: diagnostics)
        #endif
        default:
            if let planted = PlantedBugTarget(name: name) { return planted }
            return CrashFixtureTarget(name: name, diagnostics: diagnostics)
        }
    }
}
