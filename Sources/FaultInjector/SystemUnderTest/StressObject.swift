import GuardCore

/// The object every stress operation observes and changes.
///
/// - `k0`, `k1`, `k2`: stored integers, notified automatically; `sum = k0 + k1` depends on two of them.
/// - `level`: an integer announced by hand (`willChangeValue` / `didChangeValue`).
/// - `items`: an ordered to-many array, changed through the to-many helpers (insertions, removals, replacements with
///   indexes).
/// - `link`: the middle object of the dotted key path `link.k0` (another stress object, a ``StressStranger`` without
///   `k0`, or nil). It is kept behind a lock and announced by hand, so the runtime may read it while another thread
///   sets it; `linked` depends on the dotted key path `link.k0`.
/// - `gauge`: an integer kept behind a lock and announced by hand (like `link`), so it may be read (for `.old` / `.new`
///   of `gauge` or of `link.gauge` on an object linking here) while another thread sets it; the dotted key path
///   `link.gauge` reaches it.
/// - `peer`: always nil, for typed key paths through an optional (`\.peer!.k0` traps if evaluated; its name is
///   `peer.k0`).
/// - `delegate` (weak): a stored property key-value coding reads through the runtime's weak load; it points at the
///   anchor and never changes. `owner` (`unowned(unsafe)`): a stored property key-value coding must refuse.
/// - `caf\u{E9}` and `cafe\u{301}`, and two keys with long names that share their first 70 bytes: stored integers
///   told apart by their UTF-8 bytes only, or late in their names (``StressKey/spelledApart``).
///
/// A stress object remembers the slot it was made for (`home`), so the harness knows which lock serializes its
/// changes for as long as it lives.
public final class StressObject: KVOObject, @unchecked Sendable {
    /// Stored key `k0`; `sum` depends on it, and so do `link.k0` and `linked` of objects linking to this one.
    @Observed public var k0 = 0
    /// Stored key `k1`; `sum` depends on it.
    @Observed public var k1 = 0
    /// Stored key `k2`, independent of the others.
    @Observed public var k2 = 0
    /// Announced by hand: setting it notifies nobody (``automaticallyNotifiesObservers(forKey:)`` says no).
    @Observed public var level = 0
    /// An ordered to-many property; change it through `insert(_:at:into:)` and its siblings.
    @Observed public var items: [Int] = []
    /// Stored key `caf\u{E9}` (é as one scalar). Its name and ``café``'s are canonically equivalent, two
    /// spellings of one word to Swift's `==`, and two keys to key-value observing (``StressKey/spelledApart``). The
    /// source spells the two names in those two forms: an editor that normalizes this file breaks the build (the
    /// names collide) or ``StressKey/spelledApart``'s test of them.
    @Observed public var café = 0
    /// Stored key `cafe\u{301}` (e and a combining accent); see ``café``.
    @Observed public var café = 0
    /// Stored key whose long name shares its first 70 bytes with the next one's (``StressKey/longKeyOne``).
    @Observed public var aLongKeyNameThatSharesItsFirstSeventyBytesWithAnotherKeyOfTheSameObjectOne = 0
    /// Stored key whose long name shares its first 70 bytes with the one before (``StressKey/longKeyTwo``).
    @Observed public var aLongKeyNameThatSharesItsFirstSeventyBytesWithAnotherKeyOfTheSameObjectTwo = 0
    /// Always nil: `\.peer!.k0` and `\.peer?.k0` are typed key paths through it, named `peer.k0` without being
    /// evaluated.
    @Observed public var peer: StressObject? = nil
    /// A weak stored property, pointing at the anchor for the object's whole life (reading its storage as a strong
    /// reference would crash): observable, never changed.
    public weak var delegate: StressAnchor?
    /// An `unowned(unsafe)` stored property, pointing at the anchor (which lives as long as the process): not a
    /// key-value coding key.
    public unowned(unsafe) let owner: StressAnchor
    /// Unique within a process; names the object in histories and reports.
    public let id: Int

    /// `object`'s address, as a diagnostic event names it.
    static func address(of object: StressObject) -> UInt {
        UInt(bitPattern: ObjectIdentifier(object))
    }
    /// The object slot the object was made for, or -1.
    public let home: Int
    private let linkLock = Lock()
    private var storedLink: KVOObject?
    private let gaugeLock = Lock()
    private var storedGauge = 0
    private let onDeinit: (@Sendable (StressObject) -> Void)?

    /// Creates an object with all keys at zero and no link, made for object slot `home`.
    public convenience init(id: Int, home: Int = -1) {
        self.init(id: id, home: home, onDeinit: nil)
    }

    /// Creates an object like ``init(id:home:)`` whose deinit calls `onDeinit` with the object first thing, on the
    /// deallocating thread, before GuardCore's runtime drops the object's registrations (which happens later in the
    /// same deinit, in `KVOObject`'s part of it). `onDeinit` must not keep the object.
    init(id: Int, home: Int, onDeinit: (@Sendable (StressObject) -> Void)?) {
        self.id = id
        self.home = home
        self.owner = StressAnchor.shared
        self.onDeinit = onDeinit
        super.init()
        delegate = StressAnchor.shared
    }

    deinit {
        // An explorer counts the step that runs the deinit as writing the object's life.
        SchedulePoints.access(self, .lifetime, .write)
        onDeinit?(self)
    }

    /// `k0 + k1`.
    public var sum: Int { k0 &+ k1 }

    /// The middle object of `link.k0`.
    public var link: KVOObject? {
        linkLock.withLock { storedLink }
    }

    /// `link.k0`, or nil when the link is nil or has no `k0`.
    public var linked: Int? {
        (link as? StressObject)?.k0
    }

    /// Sets `link`, announcing the change by hand (observers of `link`, `link.k0` and `linked` hear about it).
    public func setLink(_ object: KVOObject?) {
        willChangeValue(forKey: "link")
        let previous = linkLock.withLock { () -> KVOObject? in
            let previous = storedLink
            storedLink = object
            return previous
        }
        didChangeValue(forKey: "link")
        withExtendedLifetime(previous) {}
    }

    /// Kept behind a lock and announced by hand: `link.gauge` of objects linking here reads it.
    public var gauge: Int {
        gaugeLock.withLock { storedGauge }
    }

    /// Sets `gauge`, announcing the change by hand (observers of `gauge`, and of `link.gauge` on objects linking
    /// here, hear about it).
    public func setGauge(_ value: Int) {
        willChangeValue(forKey: "gauge")
        gaugeLock.withLock { storedGauge = value }
        didChangeValue(forKey: "gauge")
    }

    /// The current value of `key`, encoded as ``StressValue`` does for notifications.
    public func value(of key: StressKey) -> Int {
        switch key {
        case .k0: return k0
        case .k1: return k1
        case .k2: return k2
        case .sum: return sum
        case .level: return level
        case .items: return StressValue.fingerprint(items)
        case .link: return StressValue.encode(link)
        case .linkK0, .linked: return linked ?? StressValue.nilValue
        case .gauge: return gauge
        case .linkGauge: return (link as? StressObject)?.gauge ?? StressValue.nilValue
        case .delegate, .owner: return StressValue.nilValue
        case .peerK0: return peer?.k0 ?? StressValue.nilValue
        case .composedCafe: return café
        case .decomposedCafe: return café
        case .longKeyOne: return aLongKeyNameThatSharesItsFirstSeventyBytesWithAnotherKeyOfTheSameObjectOne
        case .longKeyTwo: return aLongKeyNameThatSharesItsFirstSeventyBytesWithAnotherKeyOfTheSameObjectTwo
        }
    }

    /// Sets a stored key (through its `@Observed` setter, so observers are notified) or `gauge` (announced by hand).
    public func set(_ key: StressKey, to value: Int) {
        if key != .gauge { noteSetReads() }
        switch key {
        case .k0: k0 = value
        case .k1: k1 = value
        case .k2: k2 = value
        case .gauge: setGauge(value)
        case .composedCafe: café = value
        case .decomposedCafe: café = value
        case .longKeyOne: aLongKeyNameThatSharesItsFirstSeventyBytesWithAnotherKeyOfTheSameObjectOne = value
        case .longKeyTwo: aLongKeyNameThatSharesItsFirstSeventyBytesWithAnotherKeyOfTheSameObjectTwo = value
        default: preconditionFailure("\(key.name) is not set by a mutation")
        }
    }

    /// Tells an explorer of interleavings that the calling step reads this object's announced-keys mask and its
    /// properties' resolved keys, as every set of an `@Observed` property does: GuardCore's setter does not announce
    /// those reads itself (the set of a property nobody observes costs exactly one atomic load), so whoever sets says
    /// so, right before the set and with no schedule point in between.
    func noteSetReads() {
        SchedulePoints.access(self, .announcedKeys, .read)
        SchedulePoints.access(self, .resolvedKeys, .read)
    }

    override public class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        key == "level" || key == "link" || key == "gauge" ? false : super.automaticallyNotifiesObservers(forKey: key)
    }

    override public class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
        switch key {
        case "sum": return ["k0", "k1"]
        case "linked": return ["link.k0"]
        default: return super.keyPathsForValuesAffectingValue(forKey: key)
        }
    }

    override public func value(forKey key: String) -> Any? {
        switch key {
        case "sum": return sum
        case "link": return link
        case "linked": return linked
        case "gauge": return gauge
        default: return super.value(forKey: key)
        }
    }
}

/// What a stress object's `delegate` and `owner` point at: one instance that lives as long as the process.
public final class StressAnchor: Sendable {
    /// The one anchor.
    public static let shared = StressAnchor()
}

/// An observable object of another class, without `k0`: linking one makes `link.k0` stop making sense (the guard
/// reads it as nil and emits `keyPathUnavailable`; the raw runtime reports `unknownKey`).
public final class StressStranger: KVOObject, @unchecked Sendable {
    /// A key the stress object does not have.
    @Observed public var unrelated = 0
    /// Unique within a process, from the same sequence as the stress objects' ids.
    public let id: Int

    /// Creates a stranger.
    public init(id: Int) {
        self.id = id
    }
}
