/// Why ``Campaign/init(settings:)`` refused its settings: one sentence that says what to do.
public struct CampaignSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, and what to do about it.
    public let description: String

    /// Settings refused for the reason `description` gives.
    init(description: String) {
        self.description = description
    }

    /// The settings name a target their factory does not make.
    init(unknownTarget name: String) {
        if let reason = TargetCatalog.unavailableReason(for: name) {
            description = reason
            return
        }
        description =
            "Campaign.Settings.makeTarget makes no target called \"\(name)\" (the built-in catalog knows "
            + TargetCatalog.names.joined(separator: ", ") + " and the planted bugs): to run a system under test of "
            + "your own, set Campaign.Settings.makeTarget to a factory that makes it by that name (and, with child "
            + "processes, serve the same factory with RoundServer.serve(makeTarget:))"
    }
}
