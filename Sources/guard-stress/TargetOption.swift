import FaultInjector

/// `--target NAME` of `run` and `replay`: the error for a name no target has.
enum TargetOption {
    /// Names every target `--target` accepts (the planted bugs and their baseline too; the harness's own crash
    /// fixtures stay unlisted).
    static func unknown(_ name: String) -> UsageError {
        UsageError(
            "--target must be one of \(TargetCatalog.names.joined(separator: ", ")), or a planted bug: "
                + (TargetCatalog.plantedBugNames + [PlantedBug.baselineName]).joined(separator: ", ") + "; not '\(name)' "
                + "(guard-stress runs only these built-in targets: a system under test of your own runs through the "
                + "FaultInjector library, see SystemUnderTest)")
    }
}
