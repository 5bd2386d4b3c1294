/// **Planted bug `bug-dedup-removed`: the dedup check is gone.** A second observe of the same (controller, object,
/// key path) files a second registration (and a second runtime observance) and answers `registered` again; the
/// first one is shadowed in the lookup but stays live, so every change reaches the handler twice, and an unobserve
/// removes only the newest.
///
/// Breaks the guard's deduplication key (and falls back to Foundation's own contract: adding twice makes two
/// registrations). The oracle sees it as `non-linearizable` (two `registered` answers with no removal between) and
/// `duplicate-delivery`.
final class DedupRemovedController: BaselineController, @unchecked Sendable {
    override func reserve(_ registration: PlantedRegistration) -> Bool {
        table.lock.withLock {
            // The planted bug: no `byKey[registration.key] == nil` check.
            table.insert(registration)
            return true
        }
    }
}
