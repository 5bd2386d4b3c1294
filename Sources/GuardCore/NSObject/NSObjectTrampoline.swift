#if canImport(ObjectiveC)
import Foundation

/// The observer Foundation calls for one registration of ``NSObjectBackend``. It is private to the backend, so no
/// other code can remove it, and it only forwards: the bookkeeping is in ``TrampolineRegistration``.
final class NSObjectTrampoline: NSObject {
    private let registration: TrampolineRegistration

    init(registration: TrampolineRegistration) {
        self.registration = registration
        super.init()
    }

    override func observeValue(
        forKeyPath keyPath: String?, of object: Any?, change: [NSKeyValueChangeKey: Any]?,
        context: UnsafeMutableRawPointer?
    ) {
        guard let object else { return }
        registration.deliver(context: context, of: object as AnyObject) { field in
            change?[NSKeyValueChangeKey(field)]
        }
    }
}

extension NSKeyValueChangeKey {
    /// Foundation's constant for `field`.
    init(_ field: FoundationChangeField) {
        switch field {
        case .kind: self = .kindKey
        case .new: self = .newKey
        case .old: self = .oldKey
        case .indexes: self = .indexesKey
        case .notificationIsPrior: self = .notificationIsPriorKey
        }
    }
}
#endif
