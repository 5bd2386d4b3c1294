/// What a harness that fills GuardCore's process-wide caches ahead of time needs to know to keep them filled.
///
/// Most of those caches (stored property tables, key names) only ever grow. The per-class key path facts and computed
/// keys are bounded (see ``ObservedClassInfo``): past their limit they start over, and the entries a warm-up put there
/// are gone, so the next lookups miss and take the cache's lock once more, which a cooperative scheduler counts as
/// schedule steps. Anything in the process may make them start over (a model that answers arbitrary keys, thousands of
/// classes), so a warm-up done once is only known to hold while this count stays the same.
package enum RuntimeCacheEvictions {
    /// How many times a bounded per-class cache started over in this process. One atomic load per cache.
    package static var count: UInt64 {
        ObservedClassInfo.startedOverCount
    }
}
