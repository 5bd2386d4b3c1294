/// One guarded observation that lasts exactly as long as you keep this token: the shape of Foundation's
/// `NSKeyValueObservation`, built on an ``ObservationController`` of its own.
///
/// ```swift
/// let token = profile.guardedObserve(\.age, options: [.initial, .new]) { profile, change in
///     print("age", change.newValue ?? 0)
/// }
/// // ... later, or just drop the token:
/// token.invalidate()
/// ```
///
/// - **Invalidation.** Releasing the token invalidates it. ``invalidate()`` may be called any number of times, from
///   any thread, and from inside the token's own handler; after it returns, no change made from then on reaches the
///   handler.
/// - **Lifetime.** The observed object is held weakly, as `NSKeyValueObservation` does: when it deinitializes, the
///   observation ends without any misuse and ``isActive`` turns `false`.
/// - **Every guard guarantee**, since a controller does the work: `.initial` is delivered exactly once, before the
///   observing call returns, on the calling thread, and before any change (a change that arrives meanwhile is held
///   back and delivered right after it, on the calling thread, before the observing call returns, so the last value
///   the handler heard is the current one); handlers run outside every internal lock (a handler may
///   invalidate or release its own token, observe, or mutate); a key path that cannot be observed, or an object
///   that asks from its own deinit, is a diagnostic event and a token whose ``result`` is
///   ``ObserveResult/invalid(_:)``, never a crash.
public final class ObservationToken: @unchecked Sendable {
    /// The controller's observer, which the controller owns (holds strongly): it lives as long as the controller's
    /// state, which every registration (and so every notification under way, even one racing the token's release on
    /// another thread) holds, so a notification never finds it gone. Diagnostics name it as the observer:
    /// `TokenObserver`.
    final class TokenObserver: Sendable {}

    /// What the guard did with the observe call: ``ObserveResult/registered``, or ``ObserveResult/invalid(_:)``
    /// (after emitting its diagnostic event) for a nil object, an object running its deinit, or a key path that
    /// cannot be observed; an invalid token never calls its handler.
    public let result: ObserveResult
    private let controller: ObservationController<TokenObserver>

    /// Observes `name` (the string form of the key path, `nil` if it has none) on `object` through `backend`.
    /// `onObjectDeinit` runs once if the object deinitializes while observed. `description` (the key path as written,
    /// for a diagnostic) is rendered only if a diagnostic needs it: rendering a Swift key path costs microseconds.
    @usableFromInline
    init<Object: AnyObject>(
        observing object: Object, keyPath name: String?, description: @autoclosure () -> String,
        options: KeyValueObservingOptions,
        backend: any KeyValueObservingBackend, file: String, line: UInt,
        onObjectDeinit: (@Sendable () -> Void)? = nil,
        handler: @escaping @Sendable (Object, KeyValueChange) -> Void
    ) {
        let observedBackend = onObjectDeinit.map { DeinitReportingBackend(base: backend, onObjectDeinit: $0) }
        let controller = ObservationController(
            owning: TokenObserver(), retainsObservedObjects: false, backend: observedBackend ?? backend)
        self.controller = controller
        if let name = controller.resolvedName(name, description: description, of: object, file: file, line: line) {
            self.result = controller.registerTyped(
                object, keyPath: name, options: options, context: nil, file: file, line: line,
                handler: { _, object, change in handler(object, change) })
        } else {
            self.result = .invalid(.unobservableKeyPath)
        }
    }

    /// Ends the observation: no change made after this returns reaches the handler. Idempotent; safe from any thread
    /// and from inside the handler.
    public func invalidate() {
        // The token never removes anything by key path: no removal needs remembering.
        controller.core.unobserveAll(rememberingRemovals: false)
    }

    /// Whether the observation still runs: `false` once invalidated, once the observed object deinitialized, or if
    /// it never started (see ``result``).
    public var isActive: Bool {
        controller.registrationCount > 0
    }
}
