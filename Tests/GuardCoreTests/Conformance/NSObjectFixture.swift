#if canImport(ObjectiveC)
import Foundation
import GuardCore
import XCTest

// Apple platforms only: the conformance suite's model and fixture for Foundation's own KVO.

final class NSObjectConformanceModel: NSObject, ConformanceModel, @unchecked Sendable {
    @objc dynamic var name = ""
    @objc dynamic var age = 0
    @objc dynamic var nickname: String?
    @objc dynamic var items: [String] = []
    @objc dynamic var tags: Set<String> = []

    /// `items` and `tags` are announced by hand, as to-many changes.
    override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        key == "items" || key == "tags" ? false : super.automaticallyNotifiesObservers(forKey: key)
    }

    func mutateTags(_ kind: KeyValueSetMutationKind, _ objects: Set<String>) {
        let mutation = NSKeyValueSetMutationKind(rawValue: kind.rawValue)!
        let changed = Set(objects.map { AnyHashable($0) })
        willChangeValue(forKey: "tags", withSetMutation: mutation, using: changed)
        switch kind {
        case .union: tags.formUnion(objects)
        case .minus: tags.subtract(objects)
        case .intersect: tags.formIntersection(objects)
        case .set: tags = objects
        }
        didChangeValue(forKey: "tags", withSetMutation: mutation, using: changed)
    }

    func insertItem(_ item: String, at index: Int) {
        let indexes = IndexSet(integer: index)
        willChange(.insertion, valuesAt: indexes, forKey: "items")
        items.insert(item, at: index)
        didChange(.insertion, valuesAt: indexes, forKey: "items")
    }
}

struct NSObjectFixture: BackendFixture {
    let name = "Foundation's KVO (NSObjectBackend)"

    func makeBackend() -> any KeyValueObservingBackend { NSObjectBackend() }

    func makeModel() -> any ConformanceModel { NSObjectConformanceModel() }

    func implementationRegistrationCount(on model: any ConformanceModel) -> Int {
        guard let model = model as? NSObject else { return -1 }
        return NSObjectBackend().registrationCount(on: model)
    }

    /// A misuse of Foundation's KVO raises an Objective-C exception, which ends the test process: reaching the end
    /// of `body` is the check.
    func recordingMisuse(_ body: () -> Void) -> [String] {
        body()
        return []
    }
}
#endif
