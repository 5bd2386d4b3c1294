/// Makes a process without stored-property reflection loud instead of quietly keyless.
///
/// GuardCore's key-value coding finds stored properties through the Swift runtime's reflection entry points (see
/// ``StoredFieldReflection``). Where the runtime lacks them (Apple systems older than iOS 13.4 / macOS 10.15.4 /
/// tvOS 13.4 / watchOS 6.2), no stored property is a key. That is said twice over, never silently:
/// - one line to standard error, once per process, the first time a class's stored properties are asked for
///   (``announce()``), whatever the misuse policy;
/// - every key a ``KVOObject`` cannot answer is the misuse ``KVOMisuse/Kind/reflectionUnavailable``, which names the
///   cause, never ``KVOMisuse/Kind/unknownKey`` (which would blame the key).
enum ReflectionUnavailableNotice {
    /// The line written to standard error (without its newline).
    static let line =
        "KVOGuard: key-value coding cannot read stored properties in this process: the Swift runtime has no "
        + "reflection entry points (\(StoredFieldReflection.entryPointNames.joined(separator: ", ")); they need "
        + "iOS 13.4, macOS 10.15.4, tvOS 13.4 or watchOS 6.2). No stored or @Observed property is a key, and every "
        + "key a KVOObject does not answer through an override of value(forKey:) is the misuse reflectionUnavailable."

    /// Whether this process (or this thread's ``withReflectionUnavailable(_:)`` scope) can read stored properties.
    static var isReflectionAvailable: Bool {
        entryPointsInForce != nil
    }

    /// The entry points in force on this thread: none inside ``withReflectionUnavailable(_:)``, else the process's.
    static var entryPointsInForce: StoredFieldReflection.EntryPoints? {
        if simulation.valueIfCreated?.scope != nil { return nil }
        return StoredFieldReflection.entryPoints
    }

    /// Writes ``line`` to standard error unless it was written already (in this process, or in this thread's
    /// ``withReflectionUnavailable(_:)`` scope).
    static func announce() {
        let flag = simulation.valueIfCreated?.scope?.announced ?? processAnnounced
        guard flag.word.exchange(1) == 0 else { return }
        StandardError.writeWithoutWaiting(line + "\n")
    }

    /// Runs `body` on this thread as a process without reflection would, with its own once-only ``announce()``.
    /// Tables built meanwhile are cached without keys: use it only with classes nothing else uses.
    static func withReflectionUnavailable<Result>(_ body: () throws -> Result) rethrows -> Result {
        let state = simulation.value
        let outer = state.scope
        state.scope = Scope()
        defer { state.scope = outer }
        return try body()
    }

    private static let processAnnounced = AtomicCell()

    private final class Scope {
        let announced = AtomicCell()
    }

    private final class ThreadState {
        var scope: Scope?
    }

    private static let simulation = ThreadLocal { ThreadState() }
}
