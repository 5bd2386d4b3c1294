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
            isGuarded: false)
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
            let removal = table.remove(
                observerAddress: address, keyPath: keyPath, context: matchingContext, publishingTo: self)
        else {
            RuntimeMonitor.handle(MisuseMessages.notRegistered(observer: observer, object: self, keyPath: keyPath))
            return
        }
        finish(removal, from: table)
    }

    // MARK: Internal registration, shared by the public API, forwarders, relays and the guard's backend

    /// Registers an observance. Returns `nil` (after reporting ``KVOMisuse/Kind/unknownKey`` unless `isGuarded`) when
    /// the key path's first key is unknown.
    ///
    /// `dropsWithObject` and `isGuarded` are the two independent properties of ``Observance`` (see there): the
    /// guard's registrations are guarded, and drop with their object when it is held weakly; forwarders always drop
    /// with their object and are guarded when their root registration is.
    func register(
        _ observer: any KeyValueObserver, forKeyPath keyPath: String, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer?, dropsWithObject: Bool, isGuarded: Bool
    ) -> Observance? {
        guard KeyPathSyntax.isWellFormed(keyPath), isKnownKey(KeyPathSyntax.firstKey(of: keyPath)) else {
            if !isGuarded {
                RuntimeMonitor.handle(MisuseMessages.unknownKey(object: self, key: keyPath))
            }
            return nil
        }
        if options.contains(.initial) {
            let newValue =
                options.contains(.new)
                ? boxNil(KeyValueReading.value(of: self, forKeyPath: keyPath, reportingMisuse: !isGuarded)) : nil
            observer.observeValue(
                forKeyPath: keyPath, of: self, change: KeyValueChange(kind: .setting, keyPath: keyPath, newValue: newValue),
                context: context)
        }
        SchedulePoints.reach(.runtimeBeforeInsert)
        let observance = Observance(
            observer: observer, keyPath: keyPath, options: options, context: context, dropsWithObject: dropsWithObject,
            isGuarded: isGuarded)
        let triggers = ObservedClassInfo.triggerKeys(for: keyPath, of: type(of: self))
        let table = self.table
        let relaysNeeded = table.insert(observance, triggers: triggers, publishingTo: self)
        RuntimeMonitor.observanceAdded()
        for affectingKeyPath in relaysNeeded {
            DependencyRelay.start(for: affectingKeyPath, on: self, in: table)
        }
        if observance.isDotted {
            KeyPathForwarder.rewire(observance, of: self)
        }
        return observance
    }

    /// Removes a specific observance without any misuse check. Returns whether it was still registered.
    @discardableResult
    func unregister(_ observance: Observance) -> Bool {
        guard let table = existingTable, let removal = table.remove(observance, publishingTo: self) else { return false }
        finish(removal, from: table)
        return true
    }

    /// After a removal, outside the table's lock: counts it, detaches a dotted key path's forwarder, and stops
    /// relays nobody depends on any more.
    private func finish(_ removal: ObservationTable.Removal, from table: ObservationTable) {
        RuntimeMonitor.observancesRemoved(1)
        if removal.observance.isDotted {
            table.detachForwarder(of: removal.observance)?.detach()
        }
        for relay in removal.unusedRelays {
            unregister(relay)
        }
    }
}
