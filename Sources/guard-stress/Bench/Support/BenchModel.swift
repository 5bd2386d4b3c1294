import GuardCore

/// The observable model every bench group sets: one `@Observed` integer.
///
/// Instances are padded past a cache line, so two models set from two threads never share one (the bench measures
/// KVOGuard, not the allocator's placement). Unchecked-sendable because the bench hands models to worker queues; as
/// in any app, sets of one model from several threads are serialized by the bench itself.
final class BenchModel: KVOObject, @unchecked Sendable {
    @Observed var value = 0
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

    /// The key of ``value``.
    static let key = "value"

    /// Reads ``value`` out of line, like ``PlainModel/readValue()``: inlined into a timing loop, a read could be
    /// hoisted or merged with the loop's other work.
    @inline(never)
    func readValue() -> Int {
        value
    }
}

/// The baseline for a set and a read: a plain stored property behind accessors the compiler may not inline.
final class PlainModel: @unchecked Sendable {
    private(set) var value = 0
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

    @inline(never)
    func setValue(_ newValue: Int) {
        value = newValue
    }

    @inline(never)
    func readValue() -> Int {
        value
    }
}
