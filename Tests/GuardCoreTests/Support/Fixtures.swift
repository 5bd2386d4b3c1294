import Foundation
import GuardCore

/// A model with every kind of key the runtime supports.
final class Person: KVOObject, @unchecked Sendable {
    @Observed var name = ""
    @Observed var age = 0
    @Observed var firstName = ""
    @Observed var lastName = ""
    @Observed var nickname: String? = nil
    @Observed var account: Account? = nil
    @Observed var wallet = Account()
    @Observed var items: [String] = []
    @Observed var score = 0
    var plainNote = "plain"

    var fullName: String { "\(firstName) \(lastName)" }

    override class func keyPathsForValuesAffectingValue(forKey key: String) -> Set<String> {
        switch key {
        case "fullName": return ["firstName", "lastName"]
        case "greeting": return ["fullName"]
        default: return super.keyPathsForValuesAffectingValue(forKey: key)
        }
    }

    override class func automaticallyNotifiesObservers(forKey key: String) -> Bool {
        key == "score" ? false : super.automaticallyNotifiesObservers(forKey: key)
    }

    override func value(forKey key: String) -> Any? {
        switch key {
        case "fullName": return fullName
        case "greeting": return "Hello, \(fullName)"
        default: return super.value(forKey: key)
        }
    }
}

final class Account: KVOObject, @unchecked Sendable {
    @Observed var balance = 0
    @Observed var bank: Bank? = nil
}

final class Bank: KVOObject, @unchecked Sendable {
    @Observed var name = ""
}

/// A subclass, to check inherited observed properties.
final class Student: KVOObjectBase, @unchecked Sendable {
    @Observed var school = ""
}

class KVOObjectBase: KVOObject, @unchecked Sendable {
    @Observed var id = 0
}

/// One notification as an observer saw it.
struct Received {
    let keyPath: String
    let object: ObjectIdentifier
    let change: KeyValueChange
    let context: UnsafeMutableRawPointer?
    let thread: Thread
}

/// An observer that records every notification and can run an action inside the callback.
final class Recorder: KeyValueObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Received] = []
    var onNotify: ((Recorder, String, KVOObject, KeyValueChange) -> Void)?
    var onDeinit: (() -> Void)?

    init() {}

    deinit { onDeinit?() }

    func observeValue(
        forKeyPath keyPath: String, of object: KVOObject, change: KeyValueChange, context: UnsafeMutableRawPointer?
    ) {
        lock.withLock {
            storage.append(
                Received(
                    keyPath: keyPath, object: ObjectIdentifier(object), change: change, context: context,
                    thread: Thread.current))
        }
        onNotify?(self, keyPath, object, change)
    }

    var received: [Received] { lock.withLock { storage } }
    var changes: [KeyValueChange] { received.map(\.change) }
    var count: Int { lock.withLock { storage.count } }
    func reset() { lock.withLock { storage = [] } }
}

/// Context pointers that are distinct and stable for the test process.
enum Contexts {
    nonisolated(unsafe) static let first = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
    nonisolated(unsafe) static let second = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
    nonisolated(unsafe) static let third = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
}
