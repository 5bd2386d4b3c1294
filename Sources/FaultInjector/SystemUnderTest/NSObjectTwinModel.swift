#if canImport(ObjectiveC)
import Foundation
import GuardCore

// Apple platforms only: the `nsobject` target, the guard in front of Foundation's own KVO. Everything but the twin
// class is platform-free (MirroredGuardTarget, tested on Linux with a GuardCore-runtime twin).

/// `NSObject` twins observed through ``NSObjectBackend``.
public struct NSObjectTwinModel: StressTwinModel {
    /// `nsobject`.
    public let name = "nsobject"

    /// Creates the model.
    public init() {}

    /// Foundation's KVO behind the guard.
    public func makeBackend() -> any KeyValueObservingBackend { NSObjectBackend() }

    /// A new ``NSStressTwin``.
    public func makeTwin(of source: StressObject) -> AnyObject { NSStressTwin(source: source) }

    /// `willChangeValue(forKey:)` on the twin.
    public func willChange(_ key: StressKey, of twin: AnyObject) {
        (twin as? NSObject)?.willChangeValue(forKey: key.name)
    }

    /// `didChangeValue(forKey:)` on the twin.
    public func didChange(_ key: StressKey, of twin: AnyObject) {
        (twin as? NSObject)?.didChangeValue(forKey: key.name)
    }
}

/// A ``StressObject`` seen through Foundation: `@objc` keys that read the stress object, `sum` depending on `k0` and
/// `k1` the Foundation way. The keys are automatically notifying (`dynamic`), so Foundation treats twins as it treats
/// ordinary model objects, including their deallocation while observed; changes are announced by hand
/// (``NSObjectTwinModel``), never through the setters.
final class NSStressTwin: NSObject, @unchecked Sendable {
    private weak var source: StressObject?

    init(source: StressObject) {
        self.source = source
        super.init()
    }

    @objc dynamic var k0: Int {
        get { source?.k0 ?? 0 }
        set {}
    }

    @objc dynamic var k1: Int {
        get { source?.k1 ?? 0 }
        set {}
    }

    @objc dynamic var k2: Int {
        get { source?.k2 ?? 0 }
        set {}
    }

    @objc dynamic var sum: Int {
        source?.sum ?? 0
    }

    @objc class func keyPathsForValuesAffectingSum() -> Set<String> {
        ["k0", "k1"]
    }
}
#endif
