/// One number `guard-stress bench` reports: what was measured, in which unit, and the figure it is compared with.
///
/// This is also the JSON shape: `{"name", "value", "unit"}` plus `"baseline"` and `"ratio"` (value ÷ the
/// baseline's value) when the figure has a baseline.
struct Figure: Codable, Equatable {
    /// A dotted name such as `notify.guard.10-observers`, stable across runs and modes.
    let name: String
    /// The median over the repetitions.
    let value: Double
    /// `ns`, `ops/s`, `B` or `%`.
    let unit: String
    /// The name of the figure this one is compared with, measured in the same run.
    let baseline: String?
    /// `value` ÷ the baseline's value; absent without a baseline or when the baseline is zero.
    let ratio: Double?
}
