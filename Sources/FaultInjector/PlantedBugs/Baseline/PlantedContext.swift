import GuardCore

/// The runtime context of each planted registration: one no other registration in the process has.
///
/// GuardCore's runtime, like Foundation, finds the registration to remove by the observer's address (and the
/// context). Several planted bugs leak a runtime registration on purpose; its bridge is freed while the runtime
/// still lists it, and a later bridge allocated at the same address would match it on removal if the contexts were
/// equal. Whether that happens depends on the memory allocator, not on the schedule, so a seed file would not replay
/// exactly (seen as about one replay in ten of a `bug-initial-state-missing` file diverging). With a context of its
/// own, a registration's removal matches only that registration.
enum PlantedContext {
    private static let counter = AtomicCell()

    /// A context never handed out before in this process (never null).
    static func next() -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(bitPattern: UInt(counter.word.add(1, ordering: .relaxed)) << 4)!
    }

    /// A context no registration ever has: removals made with it never match anything.
    static var unused: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: UInt(0x8))! }
}
