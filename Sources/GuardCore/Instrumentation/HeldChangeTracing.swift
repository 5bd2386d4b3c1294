import GuardCoreAtomics

/// What a fault injector installs to follow a change the guard held back: a registration made with `.initial` keeps
/// the changes that reach it before its initial notification, and the observing thread delivers them after it. The
/// tracer tells the thread that delivers such a change which thread made it, and what that thread was doing.
package protocol HeldChangeTracer: AnyObject, Sendable {
    /// Called on the thread whose change is being held back (outside every lock of the guard): a word that
    /// identifies what that thread is doing.
    func originOfHeldChange() -> UInt64
    /// Called on the observing thread (outside every lock of the guard) around the handler call of a held-back change,
    /// with the word ``originOfHeldChange()`` gave for it.
    func deliverHeldChange(from origin: UInt64, _ body: () -> Void)
}

/// The installed ``HeldChangeTracer``. With none installed, holding a change back costs one atomic load more.
package enum HeldChangeTracing {
    /// Keeps the tracer behind one concrete class, so finding it costs no dynamic cast.
    private final class Installed: Sendable {
        let tracer: any HeldChangeTracer
        init(_ tracer: any HeldChangeTracer) { self.tracer = tracer }
    }

    private static var current: AtomicWord {
        AtomicWord(gca_held_change_tracer_word())
    }

    /// Installs `tracer` for every thread, replacing any previous one (which is never released: another thread may
    /// still be running it).
    package static func install(_ tracer: any HeldChangeTracer) {
        let retained = Unmanaged.passRetained(Installed(tracer)).toOpaque()
        current.store(UInt64(UInt(bitPattern: retained)), ordering: .releasing)
    }

    /// Removes the tracer.
    package static func uninstall() {
        current.store(0, ordering: .releasing)
    }

    /// The installed tracer, if any.
    static var tracer: (any HeldChangeTracer)? {
        guard let pointer = UnsafeRawPointer(bitPattern: UInt(truncatingIfNeeded: current.load(ordering: .acquiring)))
        else { return nil }
        return Unmanaged<Installed>.fromOpaque(pointer).takeUnretainedValue().tracer
    }
}
