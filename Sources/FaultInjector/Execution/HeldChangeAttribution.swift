import GuardCore

/// Attributes a notification that a system delivers on another thread than the one that made its change to that
/// change: the guard (and the planted bugs' baseline) holds back a change that reaches a registration before its
/// `.initial` notification, and the observing thread delivers it later, inside its observe. Recorded there as it
/// stands, the notification would be taken for part of the observe (a second initial notification).
///
/// When a change is held back, ``originOfHeldChange()`` runs on the thread that made it and names that thread's
/// innermost operation; the delivering thread runs the handler inside ``deliverHeldChange(from:_:)``, and
/// ``WorkerContext/cause`` gives that operation for the notifications recorded meanwhile. Installed into GuardCore once
/// per process (``installOnce()``); it keeps no state of its own.
final class HeldChangeAttribution: HeldChangeTracer {
    static let shared = HeldChangeAttribution()

    private static let installation: Void = HeldChangeTracing.install(shared)

    /// Makes GuardCore report the changes it holds back to this attribution (once per process).
    static func installOnce() {
        _ = installation
    }

    /// The operation the calling worker is running (``WorkerContext/cause``; -1 on a thread that runs none), as a word.
    func originOfHeldChange() -> UInt64 {
        UInt64(bitPattern: Int64(WorkerContext.current?.cause ?? -1))
    }

    /// Runs `body` with `origin`'s operation as the cause of the notifications the calling worker records in it.
    func deliverHeldChange(from origin: UInt64, _ body: () -> Void) {
        guard let worker = WorkerContext.current else { return body() }
        worker.heldCauses.append((cause: Int(Int64(bitPattern: origin)), depth: worker.frames.count))
        defer { worker.heldCauses.removeLast() }
        body()
    }
}
