import Foundation
import GuardCore
import XCTest

/// `weak` and `unowned` stored properties are key-value coding keys, read and written through the Swift runtime's weak
/// and unowned operations, as Foundation reads and observes an `@objc weak var delegate` (Key-Value Coding Programming
/// Guide, "Accessor Search Patterns": the getter's value, the referent or nil; Key-Value Observing Programming Guide,
/// "Automatic Change Notification": a set through `setValue(_:forKey:)` is announced). The zeroing of a weak
/// reference when its object goes away is not a set and is not announced, as in Foundation.
final class WeakAndUnownedPropertyTests: XCTestCase {
    func testAWeakPropertyReadsItsObjectThenNilOnceTheObjectIsGone() {
        let owner = DelegateTarget()
        let holder = ReferenceHolder(owner: owner)
        var delegate: DelegateTarget? = DelegateTarget(tag: 5)
        holder.delegate = delegate
        assertNoMisuse {
            XCTAssertTrue(holder.value(forKey: "delegate") as AnyObject? === delegate)
            XCTAssertTrue(holder.value(forKey: "delegate") is DelegateTarget, "the object itself, not an Optional")
        }
        weak var released: DelegateTarget?
        released = delegate
        delegate = nil
        XCTAssertNil(released, "key-value coding's reads took no strong reference that outlived them")
        assertNoMisuse { XCTAssertNil(holder.value(forKey: "delegate")) }
    }

    func testWeakPropertiesOfExistentialAnyObjectAndGenericTypes() throws {
        let owner = DelegateTarget()
        let holder = ReferenceHolder(owner: owner)
        let target = DelegateTarget(tag: 42)
        holder.taggedDelegate = target
        holder.anyDelegate = target
        let generic = GenericReferenceHolder<DelegateTarget>()
        generic.target = target
        var read: Any?
        assertNoMisuse {
            read = holder.value(forKey: "taggedDelegate")
            XCTAssertTrue(holder.value(forKey: "anyDelegate") as AnyObject? === target)
            XCTAssertTrue(generic.value(forKey: "target") as AnyObject? === target)
        }
        let tagged = try XCTUnwrap(read as? any TaggedDelegate)
        XCTAssertEqual(tagged.tag, 42, "the witness table came along with the object")
        XCTAssertTrue(tagged === target)
        holder.taggedDelegate = nil
        assertNoMisuse { XCTAssertNil(holder.value(forKey: "taggedDelegate")) }
    }

    func testUnownedPropertiesReadTheirObject() {
        let owner = DelegateTarget(tag: 1)
        let holder = ReferenceHolder(owner: owner)
        assertNoMisuse {
            XCTAssertTrue(holder.value(forKey: "owner") as AnyObject? === owner)
            XCTAssertTrue(holder.value(forKey: "fixedOwner") as AnyObject? === owner)
            XCTAssertNil(holder.value(forKey: "maybeOwner"), "an optional unowned property that is nil")
        }
        holder.maybeOwner = owner
        assertNoMisuse { XCTAssertTrue(holder.value(forKey: "maybeOwner") as AnyObject? === owner) }
    }

    /// An `unowned(unsafe)` reference keeps nothing alive and cannot tell a gone object: reading it could crash, so it
    /// stays refused, with a message that says why.
    func testAnUnownedUnsafePropertyIsRefusedNotRead() throws {
        let owner = DelegateTarget()
        let holder = ReferenceHolder(owner: owner)
        let misuses = recordingMisuse { XCTAssertNil(holder.value(forKey: "unsafeOwner")) }
        XCTAssertEqual(misuses.map(\.kind), [.unknownKey])
        XCTAssertTrue(try XCTUnwrap(misuses.first).message.contains("unowned(unsafe)"), misuses.first?.message ?? "")
        let refusedObservation = recordingMisuse { holder.addObserver(Recorder(), forKeyPath: "unsafeOwner") }
        XCTAssertEqual(refusedObservation.map(\.kind), [.unknownKey])
        XCTAssertEqual(holder.observationCount, 0)
    }

    func testADottedKeyPathReadsThroughAWeakProperty() {
        let holder = ReferenceHolder(owner: DelegateTarget())
        var delegate: DelegateTarget? = DelegateTarget()
        delegate?.age = 30
        holder.delegate = delegate
        assertNoMisuse { XCTAssertEqual(holder.value(forKeyPath: "delegate.age") as? Int, 30) }
        delegate = nil
        assertNoMisuse { XCTAssertNil(holder.value(forKeyPath: "delegate.age")) }
    }

    /// Foundation observes `delegate` and `delegate.age`: sets through key-value coding are announced with their old
    /// and new values, the leaf's changes reach the dotted key path, and a weak reference turning nil is silent.
    func testObservingAWeakPropertyAndAKeyPathThroughIt() throws {
        let holder = ReferenceHolder(owner: DelegateTarget())
        let recorder = Recorder()
        var first: DelegateTarget? = DelegateTarget()
        let second = DelegateTarget()
        holder.delegate = first
        assertNoMisuse {
            holder.addObserver(recorder, forKeyPath: "delegate", options: [.old, .new])
            holder.addObserver(recorder, forKeyPath: "delegate.age", options: [.initial, .new])
            first?.age = 3
            holder.setValue(second, forKey: "delegate")
            second.age = 4
        }
        XCTAssertTrue(holder.delegate === second)
        do {
            let delegateChange = try XCTUnwrap(recorder.received.first { $0.keyPath == "delegate" }?.change)
            XCTAssertTrue(delegateChange.oldValue as AnyObject? === first)
            XCTAssertTrue(delegateChange.newValue as AnyObject? === second)
        }
        XCTAssertEqual(
            recorder.notes.filter { $0.keyPath == "delegate.age" },
            [Note("delegate.age", new: "0"), Note("delegate.age", new: "3"), Note("delegate.age", new: "0"),
             Note("delegate.age", new: "4")])
        holder.setValue(first, forKey: "delegate")
        recorder.reset()
        assertNoMisuse {
            first = nil
            XCTAssertNil(holder.value(forKey: "delegate"))
        }
        XCTAssertEqual(recorder.notes, [], "the weak reference's zeroing is not announced")
        holder.removeObserver(recorder, forKeyPath: "delegate")
        holder.removeObserver(recorder, forKeyPath: "delegate.age")
    }

    /// Through the guard, `delegate.age` is observed like any dotted key path (it used to be `.invalid`).
    func testTheGuardObservesAKeyPathThroughAWeakProperty() {
        let owner = DelegateTarget()
        let holder = ReferenceHolder(owner: owner)
        let delegate = DelegateTarget()
        holder.delegate = delegate
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer)
        let log = HandlerLog()
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(holder, keyPath: "delegate.age", options: [.initial, .new], handler: log.recording("w")),
                .registered)
            XCTAssertEqual(
                controller.observe(holder, keyPath: "owner", options: [.initial, .new], handler: log.recording("u")),
                .registered)
            delegate.age = 9
        }
        XCTAssertEqual(log.all.filter { $0.tag == "w" }.map(\.new), [0, 9])
        XCTAssertEqual(log.all.filter { $0.tag == "u" }.count, 1, "the unowned owner's initial value")
        XCTAssertEqual(sink.events, [])
        withExtendedLifetime(owner) {}
    }

    /// Key-value coding writes a weak property as a weak reference (the object is not kept) and an unowned one as an
    /// unowned reference (the old object is let go), through the runtime's stores.
    func testSettingWeakAndUnownedPropertiesStoresReferencesOfTheirKind() {
        let owner = DelegateTarget()
        let holder = ReferenceHolder(owner: owner)
        let deinits = TestBox(0)
        var delegate: DelegateTarget? = DelegateTarget(tag: 7, onDeinit: { deinits.mutate { $0 += 1 } })
        var oldOwner: DelegateTarget? = DelegateTarget(onDeinit: { deinits.mutate { $0 += 1 } })
        let newOwner = DelegateTarget(tag: 3)
        holder.setValue(oldOwner, forKey: "owner")
        assertNoMisuse {
            holder.setValue(delegate, forKey: "delegate")
            holder.setValue(delegate, forKey: "taggedDelegate")
            holder.setValue(newOwner, forKey: "owner")
            holder.setValue(newOwner, forKey: "maybeOwner")
        }
        XCTAssertTrue(holder.delegate === delegate)
        XCTAssertEqual(holder.taggedDelegate?.tag, 7)
        XCTAssertTrue(holder.owner === newOwner)
        XCTAssertTrue(holder.maybeOwner === newOwner)
        delegate = nil
        oldOwner = nil
        XCTAssertEqual(deinits.get(), 2, "neither property kept its object alive")
        XCTAssertNil(holder.delegate)
        XCTAssertNil(holder.taggedDelegate)
        assertNoMisuse { holder.setValue(nil, forKey: "maybeOwner") }
        XCTAssertNil(holder.maybeOwner)
    }

    func testAnUnownedLetAndAWrongTypeAreRefusedWhenSet() {
        let owner = DelegateTarget()
        let holder = ReferenceHolder(owner: owner)
        let misuses = recordingMisuse {
            holder.setValue(DelegateTarget(), forKey: "fixedOwner")
            holder.setValue("text", forKey: "delegate")
            holder.setValue(nil, forKey: "owner")
        }
        XCTAssertEqual(misuses.map(\.kind), [.unknownKey, .typeMismatch, .nilValueForNonOptional])
        XCTAssertTrue(misuses.first?.message.contains("constant (let)") ?? false, misuses.first?.message ?? "")
        XCTAssertTrue(holder.fixedOwner === owner)
        XCTAssertTrue(holder.owner === owner)
    }
}
