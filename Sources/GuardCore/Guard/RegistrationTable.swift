/// The per-object lists of a controller's registrations: the registration table (``ControllerCore/registrations``)
/// keeps, for each observed object, the newest of its registrations, which links to the older ones through
/// ``GuardRegistration/nextOnSameObject``. Every function here runs with the controller's lock held.
enum RegistrationChain {
    /// Makes `registration` the newest of its object's chain at `head`, unless the chain already has one
    /// for its key path (then returns `false` and changes nothing).
    static func link(_ registration: GuardRegistration, into head: inout GuardRegistration?) -> Bool {
        // A new registration links to nothing yet: with no chain, nothing to compare or link (setting `nil` again
        // would only cost a release call).
        if let head {
            if containsKeyPath(of: registration.info, from: head) { return false }
            registration.nextOnSameObject = head
        }
        head = registration
        return true
    }

    /// Takes the registration for `keyPath` out of the chain at `head` (emptying the slot with the
    /// chain) and returns it.
    // Out of line: inlined, its key comparison makes `unobserve` slower (the observe + unobserve pair by about 5%
    // in `guard-stress bench`).
    @inline(never)
    static func unlink(keyPath: String, from head: inout GuardRegistration?) -> GuardRegistration? {
        unlink(from: &head) { $0.keyPath.isSameKey(as: keyPath) }
    }

    /// Takes the first registration that `matches` out of the chain at `head` and returns it.
    static func unlink(
        from head: inout GuardRegistration?, where matches: (GuardRegistration) -> Bool
    ) -> GuardRegistration? {
        guard let first = head else { return nil }
        if matches(first) {
            head = first.nextOnSameObject
            first.nextOnSameObject = nil
            return first
        }
        var previous = first
        while let current = previous.nextOnSameObject {
            if matches(current) {
                previous.nextOnSameObject = current.nextOnSameObject
                current.nextOnSameObject = nil
                return current
            }
            previous = current
        }
        return nil
    }

    /// Whether the chain at `head` has a registration for the key path of `info` (told apart by hash
    /// first: registrations of other keys of the object cost a word comparison each, not a string comparison).
    static func containsKeyPath(of info: KeyPathInfo, from head: GuardRegistration) -> Bool {
        var current: GuardRegistration? = head
        while let registration = current {
            if registration.info.isKeyPath(info.keyPath, hash: info.hash) { return true }
            current = registration.nextOnSameObject
        }
        return false
    }

    /// The registration for `keyPath` in the chain at `head`, if any.
    static func find(keyPath: String, from head: GuardRegistration?) -> GuardRegistration? {
        var current = head
        while let registration = current {
            if registration.keyPath.isSameKey(as: keyPath) { return registration }
            current = registration.nextOnSameObject
        }
        return nil
    }

    /// Takes the chain starting at `head` apart, handing `body` each of its registrations, newest first,
    /// with the reference that held it (the table's for the head, the newer registration's link for the others):
    /// moved, not copied.
    static func takeApart(
        chain head: consuming GuardRegistration?, _ body: (consuming GuardRegistration) -> Void
    ) {
        var next = head
        while let registration = next.take() {
            next = registration.nextOnSameObject.take()
            body(registration)
        }
    }

    /// The chain starting at `head`, newest first.
    static func all(from head: GuardRegistration?) -> [GuardRegistration] {
        var all: [GuardRegistration] = []
        var current = head
        while let registration = current {
            all.append(registration)
            current = registration.nextOnSameObject
        }
        return all
    }
}

// MARK: The table

extension ControllerCore {
    /// Lock held. With weakly held objects, takes out of the chain at `head` (the chain of `object`'s address) the
    /// registrations of an object that is gone but whose backend has not dropped them yet (a backend may learn of a
    /// deinit late), so that a new object at the same address never inherits them: they are retired without a
    /// removal (there is no object to remove them from) and appended to `gone`, for the caller to release after
    /// unlocking. Loading a registration's weakly held object here gives either `nil` or `object` itself, which the
    /// caller keeps alive, so no deinit can start under the lock. A weakly held ``KVOObject`` that is running its own
    /// deinit is not gone (see ``GuardRegistration/isAbout(_:)``): it may unobserve itself there.
    func takeRegistrationsOfGoneObject(
        from head: inout GuardRegistration?, notAbout object: AnyObject, into gone: inout DeferredReleases
    ) {
        guard !retainsObservedObjects, head != nil else { return }
        while let registration = RegistrationChain.unlink(from: &head, where: { !$0.isAbout(object) }) {
            registration.state.set(.removed)
            registrationTotal -= 1
            gone.append(registration)
        }
    }

    /// Lock held. The registrations in the chain at `head` that are about `object`: with weakly held objects, those
    /// of a gone object at the same address are left out (see ``takeRegistrationsOfGoneObject(from:notAbout:into:)``).
    func liveChain(from head: GuardRegistration?, of object: AnyObject) -> [GuardRegistration] {
        let all = RegistrationChain.all(from: head)
        return retainsObservedObjects ? all : all.filter { $0.isAbout(object) }
    }

    /// Lock held. Takes `registration` out of the table if it is still there and returns it (for the caller to
    /// release after unlocking).
    func dropFromTable(_ registration: GuardRegistration) -> GuardRegistration? {
        let dropped = registrations.update(registration.objectID) { head in
            RegistrationChain.unlink(from: &head, where: { $0 === registration })
        }
        guard let dropped else { return nil }
        registrationTotal -= 1
        return dropped
    }
}
