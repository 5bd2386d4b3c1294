import FaultInjector

/// Zeller and Hildebrandt's delta debugging (`ddmin`, "Simplifying and Isolating Failure-Inducing Input", TSE 2002):
/// finds a small part of a failing input that still fails.
///
/// The result is 1-minimal when the search is not stopped early: it still fails, and removing any single element of
/// it makes the failure go away. Elements keep their order. The predicate is called only on proper parts of the
/// input, never twice on the same part.
public enum DeltaDebugging {
    /// The elements of `elements` (in order) that `stillFails` needs, assuming it holds for all of them.
    ///
    /// - Parameters:
    ///   - allowsEmpty: also try the empty sequence first (a worker's operations may all go).
    ///   - shouldStop: asked before every test; once it says yes, the smallest failing part found so far is returned.
    ///   - stillFails: whether a part still shows the failure.
    public static func minimize<Element>(
        _ elements: [Element], allowsEmpty: Bool = false, shouldStop: () -> Bool = { false },
        stillFails: ([Element]) -> Bool
    ) -> [Element] {
        var tested: Set<[Int]> = []
        var current = Array(elements.indices)
        func test(_ indices: [Int]) -> Bool {
            guard !shouldStop(), tested.insert(indices).inserted else { return false }
            return stillFails(indices.map { elements[$0] })
        }
        if allowsEmpty, !current.isEmpty, test([]) { return [] }
        var granularity = 2
        while current.count >= 2, !shouldStop() {
            let chunks = split(current.count, into: granularity)
            if let chunk = chunks.first(where: { test(Array(current[$0])) }) {
                current = Array(current[chunk])
                granularity = 2
                continue
            }
            // With two chunks each complement is the other chunk, already tested.
            if granularity > 2,
                let chunk = chunks.first(where: { test(Array(current[..<$0.lowerBound] + current[$0.upperBound...])) })
            {
                current = Array(current[..<chunk.lowerBound] + current[chunk.upperBound...])
                granularity = max(granularity - 1, 2)
                continue
            }
            if granularity >= current.count { break }
            granularity = min(current.count, granularity * 2)
        }
        return current.map { elements[$0] }
    }

    /// `count` positions cut into `parts` nearly equal, non-empty ranges.
    static func split(_ count: Int, into parts: Int) -> [Range<Int>] {
        let parts = min(parts, count)
        return (0..<parts).map { part in (part * count / parts)..<((part + 1) * count / parts) }
    }
}
