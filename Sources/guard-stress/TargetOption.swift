import FaultInjector

/// `--target NAME` of `run` and `replay`: the error for a name no target has.
enum TargetOption {
    /// The error for a name the built-in catalog makes no target for: why it cannot run in this build (`nsobject`
    /// without the Objective-C runtime), or else ``unknown(_:)``.
    static func refused(_ name: String) -> UsageError {
        TargetCatalog.unavailableReason(for: name).map { UsageError($0) } ?? unknown(name)
    }

    /// Names every target `--target` accepts (the planted bugs and their baseline too; the harness's own crash
    /// fixtures stay unlisted).
    private static func unknown(_ name: String) -> UsageError {
        UsageError(
            "--target must be one of \(TargetCatalog.names.joined(separator: ", ")), or a planted bug: "
                + (TargetCatalog.plantedBugNames + [PlantedBug.baselineName]).joined(separator: ", ") + "; not '\(name)' "
                + "(guard-stress runs only these built-in targets: a system under test of your own runs through the "
                + "FaultInjector library, see SystemUnderTest)")
    }
}
