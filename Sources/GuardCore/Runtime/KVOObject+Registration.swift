extension KVOObject {
    /// Registers `observer` for changes of `keyPath`, Foundation's `addObserver(_:forKeyPath:options:context:)`.
    ///
    /// - Adding the same observer twice makes two registrations: each change notifies twice, and each needs its own
    ///   removal.
    /// - With `.initial`, one notification is sent from inside this call, before it returns and before the
    ///   registration exists (as in Foundation: removing the observer from inside that notification is the misuse
    ///   ``KVOMisuse/Kind/notRegistered``, and the registration is still added afterwards).
    /// - A dotted key path (`"account.balance"`) follows the chain and re-wires when an intermediate object is
    ///   replaced.
    /// - A first key the object does not know is the misuse ``KVOMisuse/Kind/unknownKey``, reported here rather than
    ///   at the first read so it cannot go unnoticed; nothing is registered.
    ///
    /// The observer is not retained.
    public func addObserver(
        _ observer: any KeyValueObserver, forKeyPath keyPath: String, options: KeyValueObservingOptions = [],
        context: UnsafeMutableRawPointer? = nil
    ) {
        _ = register(
            observer, forKeyPath: keyPath, options: options, context: context, dropsWithObject: false,
            onObjectDeinit: nil, reportsUnknownKey: true)
    }

    /// Removes the most recent registration of `observer` for `keyPath`, whatever its context. Removing when no
    /// registration matches is the misuse ``KVOMisuse/Kind/notRegistered`` (Foundation: `NSRangeException`).
    public func removeObserver(_ observer: any KeyValueObserver, forKeyPath keyPath: String) {
        removeObserver(observer, forKeyPath: keyPath, matchingContext: .none)
    }

    /// Removes the most recent registration of `observer` for `keyPath` made with `context`. Removing when no
    /// registration matches is the misuse ``KVOMisuse/Kind/notRegistered``.
    public func removeObserver(
        _ observer: any KeyValueObserver, forKeyPath keyPath: String, context: UnsafeMutableRawPointer?
    ) {
        removeObserver(observer, forKeyPath: keyPath, matchingContext: .some(context))
    }

    private func removeObserver(
        _ observer: any KeyValueObserver, forKeyPath keyPath: String, matchingContext: UnsafeMutableRawPointer??
    ) {
        let address = ObjectDescription.address(of: observer)
        guard let table = existingTable,
            let removed = table.remove(
                observerAddress: address, keyPath: keyPath, context: matchingContext, publishingTo: self)
        else {
            RuntimeMonitor.handle(MisuseMessages.notRegistered(observer: observer, object: self, keyPath: keyPath))
            return
        }
        finishRemoval(of: removed, from: table)
    }

    // MARK: Internal registration, shared by the public API, dotted key paths and the guard's backend

    /// Registers an observance. Returns `nil` (after reporting ``KVOMisuse/Kind/unknownKey`` if
    /// `reportsUnknownKey`) when the key path's first key is unknown.
    func register(
        _ observer: any KeyValueObserver, forKeyPath keyPath: String, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer?, dropsWithObject: Bool, onObjectDeinit: (@Sendable () -> Void)?,
        reportsUnknownKey: Bool
    ) -> Observance? {
        guard KeyPathSyntax.isWellFormed(keyPath), isKnownKey(ObservedClassInfo.firstKey(of: keyPath)) else {
            if reportsUnknownKey {
                RuntimeMonitor.handle(MisuseMessages.unknownKey(object: self, key: keyPath))
            }
            return nil
        }
        if options.contains(.initial) {
            let newValue = options.contains(.new) ? boxNil(value(forKeyPath: keyPath)) : nil
            observer.observeValue(
                forKeyPath: keyPath, of: self, change: KeyValueChange(kind: .setting, keyPath: keyPath, newValue: newValue),
                context: context)
        }
        SchedulePoints.reach(.runtimeBeforeInsert)
        let observance = Observance(
            observer: observer, keyPath: keyPath, options: options, context: context, dropsWithObject: dropsWithObject,
            onObjectDeinit: onObjectDeinit)
        let triggers = ObservedClassInfo.triggerKeys(for: keyPath, of: type(of: self))
        table.insert(observance, triggers: triggers, publishingTo: self)
        RuntimeMonitor.observanceAdded()
        if observance.isDotted {
            KeyPathForwarder.rewire(observance, of: self)
        }
        return observance
    }

    /// Removes a specific observance without any misuse check. Returns whether it was still registered.
    @discardableResult
    func unregister(_ observance: Observance) -> Bool {
        guard let table = existingTable, table.remove(observance, publishingTo: self) else { return false }
        finishRemoval(of: observance, from: table)
        return true
    }

    private func finishRemoval(of observance: Observance, from table: ObservationTable) {
        RuntimeMonitor.observancesRemoved(1)
        if observance.isDotted {
            table.detachForwarder(of: observance)?.detach()
        }
    }
}
