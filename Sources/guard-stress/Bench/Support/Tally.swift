import GuardCore

/// An observer that adds up the new values it is told about: the smallest handler that still looks at a change.
/// Used as the raw runtime's observer and as the guard controllers' observer.
final class Tally: KeyValueObserver, @unchecked Sendable {
    private(set) var total = 0
    /// Keeps `total`, which every notification writes, off the cache line of the next object the allocator hands
    /// out (often another queue's tally): sharing it would time cache-line transfers between cores, not KVOGuard.
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

    /// Adds a change's new value (if it is an `Int`).
    @inline(__always)
    func add(_ change: KeyValueChange) {
        total &+= (change.newValue as? Int) ?? 0
    }

    /// Adds a boxed value (if it is an `Int`): the floor's closure.
    @inline(__always)
    func add(boxed value: Any?) {
        total &+= (value as? Int) ?? 0
    }

    func observeValue(
        forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
    ) {
        add(change)
    }

    /// A guard controller for this tally whose diagnostics are counted, not printed.
    func makeController() -> ObservationController<Tally> {
        ObservationController(observer: self, diagnosticSink: CountingSink(keepsEvents: false))
    }

    /// Observes `model`'s value with `.new` / `.old` through `controller`, adding each new value.
    @discardableResult
    static func observe(_ model: BenchModel, with controller: ObservationController<Tally>) -> ObserveResult {
        controller.observe(model, keyPath: BenchModel.key, options: [.new, .old]) { tally, _, change in
            tally.add(change)
        }
    }
}
