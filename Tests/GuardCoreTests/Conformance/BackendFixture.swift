import Foundation
import GuardCore
import XCTest

// What the conformance suite needs from a backend: a model object with the same four keys on every backend, a way
// to see what the backend itself holds, and a way to see misuse that reached the implementation underneath.

/// The observed model, whatever the backend: `name`, `age`, an optional `nickname`, an ordered to-many `items` and an
/// unordered to-many `tags`. Every set notifies observers of that key.
protocol ConformanceModel: AnyObject, Sendable {
    var name: String { get set }
    var age: Int { get set }
    var nickname: String? { get set }
    /// Inserts `item` at `index` of `items`, announced as an ordered to-many insertion with that index.
    func insertItem(_ item: String, at index: Int)
    /// The unordered to-many property.
    var tags: Set<String> { get }
    /// Changes `tags` as the `Set` operation `kind` stands for does with `objects`, announced as that set mutation.
    func mutateTags(_ kind: KeyValueSetMutationKind, _ objects: Set<String>)
}

/// A backend the conformance suite runs on.
protocol BackendFixture: Sendable {
    /// Shown in failure messages.
    var name: String { get }
    /// The backend under test.
    func makeBackend() -> any KeyValueObservingBackend
    /// A fresh model.
    func makeModel() -> any ConformanceModel
    /// The registrations the implementation underneath holds on `model` right now.
    func implementationRegistrationCount(on model: any ConformanceModel) -> Int
    /// Runs `body` and returns every misuse it made reach the implementation underneath (where an app would crash).
    func recordingMisuse(_ body: () -> Void) -> [String]
}

// MARK: - GuardCore's runtime

final class RuntimeConformanceModel: KVOObject, ConformanceModel, @unchecked Sendable {
    @Observed var name = ""
    @Observed var age = 0
    @Observed var nickname: String? = nil
    @Observed var items: [String] = []
    @Observed var tags: Set<String> = []

    func insertItem(_ item: String, at index: Int) {
        insert([item], at: IndexSet(integer: index), into: \.items)
    }

    func mutateTags(_ kind: KeyValueSetMutationKind, _ objects: Set<String>) {
        switch kind {
        case .union: insert(objects, into: \.tags)
        case .minus: remove(objects, from: \.tags)
        case .intersect: intersect(objects, in: \.tags)
        case .set: replaceAll(with: objects, in: \.tags)
        }
    }
}

struct RuntimeFixture: BackendFixture {
    let name = "GuardCore runtime"

    func makeBackend() -> any KeyValueObservingBackend { KVORuntimeBackend() }

    func makeModel() -> any ConformanceModel { RuntimeConformanceModel() }

    func implementationRegistrationCount(on model: any ConformanceModel) -> Int {
        (model as? KVOObject)?.observationCount ?? -1
    }

    func recordingMisuse(_ body: () -> Void) -> [String] {
        GuardCoreTests.recordingMisuse(body).map(\.message)
    }
}

// MARK: - The simulated Foundation KVO (the NSObject backend's platform-free half)

final class SimulatedConformanceModel: SimulatedKVOObject, ConformanceModel, @unchecked Sendable {
    private let storageLock = NSLock()
    private var storedName = ""
    private var storedAge = 0
    private var storedNickname: String?
    private var storedItems: [String] = []
    private var storedTags: Set<String> = []

    var name: String {
        get { storageLock.withLock { storedName } }
        set { change("name") { storageLock.withLock { storedName = newValue } } }
    }

    var age: Int {
        get { storageLock.withLock { storedAge } }
        set { change("age") { storageLock.withLock { storedAge = newValue } } }
    }

    var nickname: String? {
        get { storageLock.withLock { storedNickname } }
        set { change("nickname") { storageLock.withLock { storedNickname = newValue } } }
    }

    func insertItem(_ item: String, at index: Int) {
        change("items", kind: .insertion, indexes: IndexSet(integer: index)) {
            storageLock.withLock { storedItems.insert(item, at: index) }
        }
    }

    var tags: Set<String> { storageLock.withLock { storedTags } }

    func mutateTags(_ kind: KeyValueSetMutationKind, _ objects: Set<String>) {
        changeSet("tags", kind, using: Set(objects.map { AnyHashable($0) })) {
            storageLock.withLock {
                switch kind {
                case .union: storedTags.formUnion(objects)
                case .minus: storedTags.subtract(objects)
                case .intersect: storedTags.formIntersection(objects)
                case .set: storedTags = objects
                }
            }
        }
    }

    override func value(forKey key: String) -> Any? {
        switch key {
        case "name": return name
        case "age": return age
        case "nickname": return nickname
        case "items": return storageLock.withLock { storedItems }
        case "tags": return tags
        default: return nil
        }
    }

    override func knowsKey(_ key: String) -> Bool {
        ["name", "age", "nickname", "items", "tags"].contains(key)
    }
}

/// The NSObject backend's logic over a simulated Foundation (see SimulatedFoundationKVO.swift).
struct SimulatedFoundationFixture: BackendFixture {
    let name = "simulated Foundation (TrampolineBackend)"

    func makeBackend() -> any KeyValueObservingBackend { TrampolineBackend(platform: SimulatedPlatform()) }

    func makeModel() -> any ConformanceModel { SimulatedConformanceModel() }

    func implementationRegistrationCount(on model: any ConformanceModel) -> Int {
        guard let model = model as? SimulatedKVOObject else { return -1 }
        let held = TrampolineBackend(platform: SimulatedPlatform()).registrationCount(on: model)
        // The backend's own bookkeeping and what "Foundation" holds must agree.
        XCTAssertEqual(held, model.observanceCount, "trampolines held vs. Foundation's registrations")
        return model.observanceCount
    }

    func recordingMisuse(_ body: () -> Void) -> [String] {
        SimulatedFoundation.reset()
        body()
        defer { SimulatedFoundation.reset() }
        return SimulatedFoundation.misuses
    }
}
