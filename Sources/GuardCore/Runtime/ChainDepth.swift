/// Bounds how deeply one thread follows dotted key paths and dependencies inside each other, so no chain of them can
/// overflow its stack.
///
/// Adding an observance of a dotted key path adds one of its rest on the next object (``KeyPathForwarder``), and a
/// key that depends on a dotted key path adds one of that (``DependencyRelay``), whose objects' keys may depend on
/// more: each such step (a forwarder's observance, a relay's) nests inside the one that made it. A single key path
/// longer than ``KeyPathSyntax/maximumGuardedComponents`` is refused when added (``KeyPathInfo/overlongKeyPath``), but
/// a chain that only turns out long at run time (a dependency on `next.total` along a long list of objects) is not
/// known in advance. So every step counts here, per thread, and the step beyond ``limit`` is not made: that link of
/// the chain reads as broken, and when the outermost observance on this thread is an application's own (not the
/// guard's), that is the misuse ``KVOMisuse/Kind/keyPathTooLong``. At the limit the nesting stays well inside a 512 KB
/// thread stack.
enum ChainDepth {
    private final class State {
        var depth = 0
        /// Whether the outermost observance under way on this thread reports misuse; `nil` while none is.
        var outermostReportsMisuse: Bool?
    }

    private static let state = ThreadLocal { State() }

    /// The most steps nested on one thread. Following a dotted key path is one step per component after the first,
    /// starting a dependency's relay one more: a key path of ``KeyPathSyntax/maximumGuardedComponents`` components, or
    /// a key whose dependency has that many, fits.
    static let limit = KeyPathSyntax.maximumGuardedComponents

    /// Runs an observance's follow-up work (its relays and forwarder); the outermost one on this thread decides
    /// whether a step refused inside it is reported.
    static func followingUp<Result>(reportsMisuse: Bool, _ body: () -> Result) -> Result {
        let state = state.value
        guard state.outermostReportsMisuse == nil else { return body() }
        state.outermostReportsMisuse = reportsMisuse
        defer { state.outermostReportsMisuse = nil }
        return body()
    }

    /// Runs `body` one step deeper, or returns `nil` without running it when ``limit`` steps are already under way on
    /// this thread.
    static func step<Result>(_ body: () -> Result) -> Result? {
        let state = state.value
        guard state.depth < limit else { return nil }
        state.depth += 1
        defer { state.depth -= 1 }
        return body()
    }

    /// Whether a step refused now must be reported as misuse (the outermost observance is an application's own).
    static var refusedStepIsMisuse: Bool {
        state.value.outermostReportsMisuse ?? false
    }
}
