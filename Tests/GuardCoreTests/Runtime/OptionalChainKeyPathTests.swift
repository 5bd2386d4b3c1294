import Foundation
@testable import GuardCore
import XCTest

/// Swift key paths with optional chains and force unwraps in the typed APIs.
///
/// Foundation: `observe(\.link?.age)` observes the key path `"link.age"` (the key path's `_kvcKeyPathString`, which
/// the compiler gives an `@objc` chain whatever its optional steps), and a `nil` link reads as `nil`, exactly as
/// `addObserver(_:forKeyPath: "link.age")` does.
final class OptionalChainKeyPathTests: XCTestCase {
    final class Profile: KVOObject, @unchecked Sendable {
        @Observed var age = 0
        @Observed var height = 0
        @Observed var name = ""
        @Observed var link: Profile?
        @Observed var account: Account?
        @Observed var scores: [Int] = [1, 2]

        /// A settable computed property of the type of two `@Observed` ones: no key-value name.
        var ageInMonths: Int {
            get { age * 12 }
            set { age = newValue / 12 }
        }
    }

    private func profile(age: Int, link: Profile? = nil) -> Profile {
        let profile = Profile()
        profile.age = age
        profile.link = link
        return profile
    }

    func testOptionalChainsAndForceUnwrapsAreNamedLikeFoundationsKeyPathString() {
        let profile = Profile()
        XCTAssertEqual(profile.keyPathString(for: \.link?.age), "link.age", "named while link is nil")
        XCTAssertEqual(profile.keyPathString(for: \.link!.age), "link.age", "a nil link is never force-unwrapped")
        XCTAssertEqual(profile.keyPathString(for: \.link?.height), "link.height")
        XCTAssertEqual(profile.keyPathString(for: \.link?.link?.name), "link.link.name")
        XCTAssertEqual(profile.keyPathString(for: \.link!.link!.age), "link.link.age")
        profile.link = self.profile(age: 3)
        XCTAssertEqual(profile.keyPathString(for: \.link?.age), "link.age", "and while it is set")
        XCTAssertEqual(profile.keyPathString(for: \.link!.link?.age), "link.link.age")
    }

    /// `Account` has one `@Observed` `Int` (`balance`): past a `nil` account, with no account at hand, that is the one.
    func testAComponentOfAnotherClassPastANilLinkIsNamedAfterItsOnlyPropertyOfThatType() {
        let person = Person()
        XCTAssertEqual(person.keyPathString(for: \.account?.balance), "account.balance")
        XCTAssertEqual(person.keyPathString(for: \.account!.bank?.name), "account.bank.name")
        person.account = Account()
        XCTAssertEqual(person.keyPathString(for: \.account?.balance), "account.balance")
    }

    final class Pair: KVOObject, @unchecked Sendable {
        @Observed var first = 0
        @Observed var second = 0
    }

    final class PairHolder: KVOObject, @unchecked Sendable {
        @Observed var pair: Pair?
    }

    /// Past a `nil` link to a class with two `@Observed` `Int`s and none of it at hand, the type names nothing; once
    /// the link is there, the component is read and named (an inferred or missing name is not kept).
    func testAnAmbiguousComponentPastANilLinkIsNamedOnceTheLinkIsThere() {
        let holder = PairHolder()
        XCTAssertNil(holder.keyPathString(for: \.pair?.second))
        holder.pair = Pair()
        XCTAssertEqual(holder.keyPathString(for: \.pair?.second), "pair.second")
        XCTAssertEqual(holder.keyPathString(for: \.pair!.first), "pair.first")
        holder.pair = nil
        XCTAssertEqual(holder.keyPathString(for: \.pair?.second), "pair.second", "a certain name is kept")
    }

    func testAComputedPropertyAlongAnOptionalChainHasNoName() {
        let profile = Profile()
        XCTAssertNil(profile.keyPathString(for: \.link?.ageInMonths), "its getter reads `age`, another property")
        profile.link = self.profile(age: 2)
        XCTAssertNil(profile.keyPathString(for: \.link?.ageInMonths))
        XCTAssertEqual(profile.link?.age, 2, "naming changed nothing")
        XCTAssertNil(profile.keyPathString(for: \.link?.scores[0]), "a subscript has no name")
    }

    func testTheRuntimeObservesTheNamedKeyPathAndANilLinkReadsAsNil() {
        let profile = Profile()
        let recorder = Recorder()
        assertNoMisuse {
            profile.addObserver(recorder, forKeyPath: \.link?.age, options: [.initial, .new])
            profile.link = self.profile(age: 3)
            profile.link?.age = 4
            profile.link = nil
            profile.removeObserver(recorder, forKeyPath: \.link!.age)
        }
        XCTAssertEqual(
            recorder.notes,
            [
                Note("link.age", new: boxedNil), Note("link.age", new: shown(3)), Note("link.age", new: shown(4)),
                Note("link.age", new: boxedNil),
            ])
        XCTAssertEqual(profile.observationCount, 0)
    }

    func testTheGuardsTypedObserveTypesTheValues() {
        let profile = Profile()
        let owner = Recorder()
        let sink = CountingSink()
        let controller = ObservationController(observer: owner, diagnosticSink: sink)
        let optional = TestBox<[String]>([])
        let forced = TestBox<[String]>([])
        assertNoMisuse {
            XCTAssertEqual(
                controller.observe(profile, \.link?.age, options: [.initial, .new]) { _, _, change in
                    optional.mutate { $0.append(String(describing: change.newValue)) }
                }, .registered)
            XCTAssertEqual(
                controller.observe(profile, \.link!.height, options: [.initial, .new]) { _, _, change in
                    forced.mutate { $0.append(String(describing: change.newValue)) }
                }, .registered)
            let link = self.profile(age: 5)
            link.height = 170
            profile.link = link
            XCTAssertEqual(controller.observe(profile, \.link!.age) { _, _, _ in }, .duplicate, "the same key path")
            XCTAssertEqual(controller.unobserve(profile, \.link?.age), .removed)
            XCTAssertEqual(controller.unobserve(profile, \.link?.height), .removed)
        }
        XCTAssertEqual(optional.get(), ["Optional(nil)", "Optional(Optional(5))"])
        XCTAssertEqual(forced.get(), ["nil", "Optional(170)"])
        XCTAssertEqual(sink.events.map(\.kind), [.duplicateObservation])
        XCTAssertEqual(profile.observationCount, 0)
    }

    func testAKeyPathWithoutANameIsDescribedReadablyWithWhatToDoInstead() {
        let profile = Profile()
        let owner = Recorder()
        let sink = CountingSink()
        let controller = ObservationController(observer: owner, diagnosticSink: sink)
        XCTAssertEqual(controller.observe(profile, \.link?.ageInMonths) { _, _, _ in }, .invalid(.unobservableKeyPath))
        XCTAssertEqual(controller.observe(profile, \.scores[1]) { _, _, _ in }, .invalid(.unobservableKeyPath))
        XCTAssertEqual(
            sink.events.map(\.keyPath), ["\\Profile.link?.<computed: Int>", "\\Profile.<computed: Array<Int>>.<computed: Int>"])
        let text = sink.events.first.map(String.init(describing:)) ?? ""
        XCTAssertTrue(text.contains("without a key-value name: observe a string key path instead"), text)
        XCTAssertFalse(sink.events.contains { $0.keyPath?.contains("<computed 0x") == true }, "no accessor addresses")

        let misuses = recordingMisuse { profile.addObserver(owner, forKeyPath: \.link!.ageInMonths) }
        XCTAssertEqual(misuses.map(\.kind), [.unknownKey])
        XCTAssertEqual(misuses.first?.keyPath, "\\Profile.link!.<computed: Int>")
        XCTAssertTrue(misuses.first?.message.contains("Observe the string key path") == true)
        XCTAssertEqual(profile.observationCount, 0)
    }

    func testATokenObservesAnOptionalChain() {
        let profile = Profile()
        let heard = TestBox<[Int?]>([])
        let token = profile.guardedObserve(\.link?.age, options: [.new]) { _, change in
            heard.mutate { $0.append(change.newValue ?? -1) }
        }
        XCTAssertTrue(token.isActive)
        profile.link = self.profile(age: 8)
        token.invalidate()
        XCTAssertEqual(heard.get(), [8])
    }

    /// `values(of:)` reads the value after each change: a force unwrap is read through its name, never evaluated, and
    /// yields nothing while the link is `nil`.
    func testValuesOfAForceUnwrapNeverTrapsAndSkipsNil() async {
        let profile = Profile()
        var iterator = profile.values(of: \.link!.age, bufferingNewest: 4).makeAsyncIterator()
        profile.link = self.profile(age: 6)
        profile.link = nil
        profile.link = self.profile(age: 7)
        let first = await iterator.next()
        let second = await iterator.next()
        XCTAssertEqual([first, second], [6, 7])
    }
}
