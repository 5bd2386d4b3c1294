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
    /// - A key path through an array or a set (`items.name`, as the stored property's declared type or the first
    ///   key's current value tells), or with a collection operator (`items.@count`), is the misuse
    ///   ``KVOMisuse/Kind/keyPathThroughCollection``, as Foundation's collections refuse to be observed; nothing is
    ///   registered. So is a key path whose keys are declared to depend on such a key path. A collection that turns
    ///   up along the chain later (a computed middle key set to an array) is reported when the chain is re-wired to
    ///   it, and the chain reads as broken there.
    /// - A key path of more than ``KeyPathSyntax/maximumGuardedComponents`` (128) components, or one whose keys are
    ///   declared to depend (``keyPathsForValuesAffectingValue(forKey:)``) on a key path that long, is the misuse
    ///   ``KVOMisuse/Kind/keyPathTooLong``; nothing is registered. Following it could overflow the thread's stack
    ///   (Foundation follows it until it does). Chains of dependencies and dotted key paths that only turn out longer
    ///   at run time (a dependency on `next.total` along a long list of objects) are followed up to that many nested
    ///   steps per thread; the step beyond is not made: the chain reads as broken there, reported as the same misuse.
    /// - Order, as in Foundation: a change's prior notifications (`.prior`) reach the registrations of a key path
    ///   oldest first, and its change notifications reach them newest first, so each observer's prior / change pair
    ///   nests inside those of the observers registered before it. Across key paths, the changed key's own
    ///   registrations get their prior notifications first and their change notifications last (dependent and
    ///   dotted key paths in between, in the reverse order on the way back). A key path that several declared
    ///   dependencies lead to hears about each change once.
    ///
    /// The observer is not retained.
    public func addObserver(
        _ observer: any KeyValueObserver, forKeyPath keyPath: String, options: KeyValueObservingOptions = [],
        context: UnsafeMutableRawPointer? = nil
    ) {
        register(observer, forKeyPath: keyPath, options: options, context: context)
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

    /// Registers an application's observer, with Foundation's behaviour: returns `nil` after reporting
    /// ``KVOMisuse/Kind/unknownKey`` when the key path's first key is unknown.
    @discardableResult
    func register(
        _ observer: any KeyValueObserver, forKeyPath keyPath: String, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer?
    ) -> Observance? {
        guard let info = registrationInfo(for: keyPath, reportingMisuse: true) else { return nil }
        if options.contains(.initial) {
            observer.observeValue(
                forKeyPath: keyPath, of: self, change: initialChange(for: keyPath, options, reportingMisuse: true),
                context: context)
        }
        return insert(ObserverObservance(observer: observer, info: info, options: options, context: context))
    }

    /// Registers a receiver the runtime or the guard made (see ``ReceiverObservance``). Returns `nil` (after reporting
    /// ``KVOMisuse/Kind/unknownKey`` unless `isGuarded`) when the key path's first key is unknown.
    ///
    /// `dropsWithObject`, `isGuarded` and `joinsChangesUnderWay` are independent properties of ``Observance`` (see
    /// there): the guard's registrations are guarded, and drop with their object when it is held weakly; forwarders
    /// always drop with their object and are guarded (and join changes under way) when their root registration is;
    /// relays are guarded but never join a change under way.
    func register(
        _ receiver: any ObservationReceiver, forKeyPath keyPath: String, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer?, dropsWithObject: Bool, isGuarded: Bool, joinsChangesUnderWay: Bool? = nil
    ) -> Observance? {
        guard let info = registrationInfo(for: keyPath, reportingMisuse: !isGuarded) else { return nil }
        return register(
            receiver, info: info, options: options, context: context, dropsWithObject: dropsWithObject,
            isGuarded: isGuarded, joinsChangesUnderWay: joinsChangesUnderWay)
    }

    /// Registers a receiver for a key path already known to be registrable here (`info`).
    func register(
        _ receiver: any ObservationReceiver, info: KeyPathInfo, options: KeyValueObservingOptions,
        context: UnsafeMutableRawPointer?, dropsWithObject: Bool, isGuarded: Bool, joinsChangesUnderWay: Bool? = nil
    ) -> Observance {
        if options.contains(.initial) {
            receiver.receive(initialChange(for: info.keyPath, options, reportingMisuse: !isGuarded), of: self)
        }
        return insert(
            ReceiverObservance(
                receiver: receiver, info: info, options: options, context: context, dropsWithObject: dropsWithObject,
                isGuarded: isGuarded, joinsChangesUnderWay: joinsChangesUnderWay))
    }

    /// What the runtime knows about `keyPath` on this object, or `nil` (after reporting
    /// ``KVOMisuse/Kind/unknownKey`` if asked to) when it cannot be registered.
    private func registrationInfo(for keyPath: String, reportingMisuse: Bool) -> KeyPathInfo? {
        guard let info = ObservedClassInfo.keyPathInfo(for: keyPath, on: self) else {
            if reportingMisuse {
                RuntimeMonitor.handle(MisuseMessages.unknownKey(object: self, key: keyPath))
            }
            return nil
        }
        if let overlong = info.overlongKeyPath {
            if reportingMisuse {
                RuntimeMonitor.handle(MisuseMessages.keyPathTooLong(object: self, keyPath: keyPath, overlong: overlong))
            }
            return nil
        }
        if let step = info.collectionStep ?? (reportingMisuse ? collectionAtFirstKey(of: info) : nil) {
            if reportingMisuse {
                RuntimeMonitor.handle(MisuseMessages.keyPathThroughCollection(object: self, keyPath: keyPath, step: step))
            }
            return nil
        }
        return info
    }

    /// For a dotted key path whose first key may hold a collection, the collection it holds now, if it does (read
    /// quietly). Only a registration that reports misuse asks: the guard's check already refuses a chain whose next
    /// value is not an observable object.
    private func collectionAtFirstKey(of info: KeyPathInfo) -> CollectionStep? {
        guard info.firstKeyMayHoldCollection, let remainingPath = info.remainingPath,
            let value = KeyValueReading.value(of: self, forKey: info.firstKey, reportingMisuse: false),
            value is any KeyValueCodingCollection
        else { return nil }
        return CollectionStep(
            keyPath: info.keyPath, collectionKeyPath: info.firstKey, forwardedPath: remainingPath,
            collectionType: type(of: value))
    }

    /// The `.initial` notification: sent before the registration exists, with the current value if `.new` is asked
    /// for, never an old one.
    private func initialChange(
        for keyPath: String, _ options: KeyValueObservingOptions, reportingMisuse: Bool
    ) -> KeyValueChange {
        let newValue =
            options.contains(.new)
            ? boxNil(KeyValueReading.value(of: self, forKeyPath: keyPath, reportingMisuse: reportingMisuse)) : nil
        return KeyValueChange(kind: .setting, keyPath: keyPath, newValue: newValue)
    }

    /// Inserts `observance`, made for a key path known to be registrable here, and starts what it needs (relays
    /// of dependent keys, a dotted key path's forwarder). Returns `observance`.
    func insert(_ observance: Observance) -> Observance {
        add(observance)
        return observance
    }

    /// ``insert(_:)`` for a caller that keeps `observance` itself (the guard): handing it back would cost a
    /// reference.
    @inline(__always)
    func add(_ observance: Observance) {
        SchedulePoints.reach(.runtimeBeforeInsert, observance)
        let table = self.table
        let insertion = table.insert(observance, publishingTo: self)
        RuntimeMonitor.observanceAdded()
        guard !insertion.relaysNeeded.isEmpty || observance.isDotted else { return }
        ChainDepth.registering(reportsMisuse: !observance.isGuarded) {
            for affectingKeyPath in insertion.relaysNeeded {
                DependencyRelay.start(for: affectingKeyPath, on: self, in: table)
            }
            if observance.isDotted {
                KeyPathForwarder.rewire(observance, of: self)
            }
        }
    }

    /// Removes a specific observance without any misuse check. Returns whether it was still registered.
    @discardableResult
    func unregister(_ observance: Observance) -> Bool {
        // Unretained: this object holds its table for its whole life.
        guard let table = existingTableReference else { return false }
        return table._withUnsafeGuaranteedRef { table in
            guard let removal = table.remove(observance, publishingTo: self) else { return false }
            finish(removal, from: table)
            return true
        }
    }

    /// After a removal, outside the table's lock: counts it, detaches a dotted key path's forwarder, and stops
    /// relays nobody depends on any more (each unregisters once the changes it began have ended). The removal (and
    /// whatever it holds) is released when this returns.
    private func finish(_ removal: ObservationTable.Removal, from table: ObservationTable) {
        RuntimeMonitor.observancesRemoved(1)
        if removal.observance.isDotted {
            table.detachForwarder(of: removal.observance)?.detach()
        }
        for relay in removal.unusedRelays {
            DependencyRelay.stop(relay, on: self)
        }
    }
}
