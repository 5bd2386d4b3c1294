import GuardCore

/// A planted bug (or, with `bug` `nil`, the unmodified baseline) behind ``SystemUnderTest``: it promises the
/// guard's semantics and breaks them in the one way its ``PlantedBug`` documents. It observes the classic keys
/// (`k0`, `k1`, `k2`, `sum`) and `gauge` (whose `.initial` value is read racing its sets, for
/// ``PlantedBug/initialReadEarly``; the other bugs' scenarios draw only the classic keys). Make one per round: a
/// singleton's shared table lives in the target.
public struct PlantedBugTarget: SystemUnderTest {
    /// The planted bug, or `nil` for the baseline.
    public let bug: PlantedBug?
    /// The bug's name (`bug-dedup-removed`, ...), or `planted-baseline`.
    public var name: String { bug?.rawValue ?? PlantedBug.baselineName }
    /// It promises what the guard promises.
    public let promisesGuardSemantics = true
    /// The classic keys and `gauge`.
    public var observableKeys: Set<StressKey> { Set(StressKey.classic + [.gauge]) }
    /// The singleton's table (used only by bugs whose controllers share one).
    private let sharedTable = PlantedTable()

    /// The target of `bug`; `nil` for the unmodified baseline.
    public init(_ bug: PlantedBug?) {
        self.bug = bug
    }

    /// The target called `name` (a ``PlantedBug`` raw value or ``PlantedBug/baselineName``), or `nil`.
    public init?(name: String) {
        if name == PlantedBug.baselineName {
            self.init(nil)
        } else if let bug = PlantedBug(rawValue: name) {
            self.init(bug)
        } else {
            return nil
        }
    }

    /// A controller of the bug (or of the baseline) for `observer`.
    public func makeController(
        for observer: StressObserver, retainsObjects: Bool, diagnostics: any DiagnosticSink
    ) -> any StressController {
        let table = bug?.sharesOneTable == true ? sharedTable : PlantedTable()
        guard let bug else { return BaselineController(observer: observer, retainsObjects: retainsObjects, table: table) }
        return bug.makeController(for: observer, retainsObjects: retainsObjects, table: table)
    }
}
