import GuardCore

/// Makes the system under test called `name`, sending its diagnostics (if it reports any) to `diagnostics`; `nil`
/// for a name it does not know.
///
/// ``TargetCatalog/make(_:diagnostics:)`` is the factory of the built-in targets. A program with systems under test
/// of its own writes one that knows their names and passes it to ``Campaign/Settings/makeTarget`` and, when rounds
/// run in child processes, the same one to ``RoundServer/serve(makeTarget:)`` in the child program: the parent makes
/// the target of rounds that run in process, the child of rounds that run there, both by the name the seed files keep.
public typealias TargetFactory = @Sendable (_ name: String, _ diagnostics: any DiagnosticSink) -> (any SystemUnderTest)?
