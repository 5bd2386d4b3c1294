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
    public func makeTwin(reading state: StressTwinState) -> AnyObject { NSStressTwin(state: state) }

    /// `willChangeValue(forKey:)` on the twin.
    public func willChange(_ key: StressKey, of twin: AnyObject) {
        (twin as? NSObject)?.willChangeValue(forKey: key.name)
    }

    /// `didChangeValue(forKey:)` on the twin.
    public func didChange(_ key: StressKey, of twin: AnyObject) {
        (twin as? NSObject)?.didChangeValue(forKey: key.name)
    }
}

/// A ``StressObject`` seen through Foundation: `@objc` keys that read its ``StressTwinState``, `sum` depending on `k0`
/// and `k1` the Foundation way. The keys are automatically notifying (`dynamic`), so Foundation treats twins as it treats
/// ordinary model objects, including their deallocation while observed; changes are announced by hand
/// (``NSObjectTwinModel``), never through the setters.
final class NSStressTwin: NSObject, @unchecked Sendable {
    private let state: StressTwinState

    init(state: StressTwinState) {
        self.state = state
        super.init()
    }

    @objc dynamic var k0: Int {
        get { state.value(of: .k0) }
        set {}
    }

    @objc dynamic var k1: Int {
        get { state.value(of: .k1) }
        set {}
    }

    @objc dynamic var k2: Int {
        get { state.value(of: .k2) }
        set {}
    }

    @objc dynamic var sum: Int {
        state.value(of: .sum)
    }

    @objc class func keyPathsForValuesAffectingSum() -> Set<String> {
        ["k0", "k1"]
    }
}
#endif
