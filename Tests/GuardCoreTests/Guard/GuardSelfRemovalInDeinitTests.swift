import Foundation
@testable import GuardCore
import XCTest

/// An observed object that removes its own registrations in its deinit (the FBKVOController-era habit), through a
/// controller that holds it weakly: its weak references already read `nil` there, yet its registrations are its own.
final class GuardSelfRemovalInDeinitTests: XCTestCase {
    /// A model that runs `onDeinit` with itself first thing in its deinit.
    final class SelfRemovingModel: KVOObject, @unchecked Sendable {
        @Observed var value = 0
        @Observed var name = ""
        private let onDeinit: @Sendable (SelfRemovingModel) -> Void

        init(onDeinit: @escaping @Sendable (SelfRemovingModel) -> Void) {
            self.onDeinit = onDeinit
        }

        deinit {
            onDeinit(self)
        }
    }

    /// Makes a model observed for `value` (and `name`) through a weak controller, releases it, and returns what
    /// `inDeinit` recorded while the model's deinit ran.
    private func releaseObservedModel(
        _ controller: ObservationController<GuardTestObserver>,
        inDeinit: @escaping @Sendable (ObservationController<GuardTestObserver>, SelfRemovingModel) -> [String]
    ) -> [String] {
        let recorded = LockedBox<[String]>([])
        do {
            let model = SelfRemovingModel { model in recorded.value = inDeinit(controller, model) }
            XCTAssertEqual(controller.observe(model, keyPath: "value") { _, _, _ in }, .registered)
            XCTAssertEqual(controller.observe(model, keyPath: "name") { _, _, _ in }, .registered)
        }
        return recorded.value
    }

    func testUnobservingAKeyPathOfItselfInItsDeinitRemovesIt() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: false)
        let baseline = liveObservances
        let misuses = recordingMisuse {
            let recorded = releaseObservedModel(controller) { controller, model in
                ["\(controller.unobserve(model, keyPath: "value"))", "\(controller.registrationCount)"]
            }
            XCTAssertEqual(recorded, ["removed", "1"], "the registration is the deinitializing object's own")
        }
        XCTAssertEqual(misuses, [])
        XCTAssertEqual(sink.records, [], "no removal-of-unregistered event for a registered key path")
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(liveObservances, baseline)
    }

    func testUnobservingItselfInItsDeinitRemovesEverything() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: false)
        let baseline = liveObservances
        let misuses = recordingMisuse {
            let recorded = releaseObservedModel(controller) { controller, model in
                ["\(controller.unobserve(model))", "\(controller.registrationCount)"]
            }
            XCTAssertEqual(recorded, ["removed", "0"])
        }
        XCTAssertEqual(misuses, [])
        XCTAssertEqual(sink.records, [])
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(liveObservances, baseline)
    }

    func testQueriesInItsDeinitSeeItsRegistrations() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: false)
        let recorded = releaseObservedModel(controller) { controller, model in
            [
                "\(controller.isObserving(model, keyPath: "value"))", "\(controller.observedKeyPaths(of: model))",
                "\(controller.registrationCount)",
            ]
        }
        XCTAssertEqual(recorded, ["true", "[\"name\", \"value\"]", "2"])
        XCTAssertEqual(sink.records, [])
        XCTAssertEqual(controller.registrationCount, 0, "dropped as the deinit finished")
    }

    func testRemovingTwiceInItsDeinitIsADoubleRemoval() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: false)
        let recorded = releaseObservedModel(controller) { controller, model in
            [
                "\(controller.unobserve(model, keyPath: "value"))", "\(controller.unobserve(model, keyPath: "value"))",
                "\(controller.unobserve(model, keyPath: "other"))",
            ]
        }
        XCTAssertEqual(recorded, ["removed", "alreadyRemoved", "notRegistered"])
        XCTAssertEqual(sink.records.map(\.kind), [.doubleRemoval, .removalOfUnregistered])
        XCTAssertEqual(controller.registrationCount, 0)
    }

    func testRemovingItselfAfterUnobserveAllInItsDeinitIsADoubleRemoval() {
        // unobserveAll (here in the deinit itself; in a program, on another thread while the deinit runs) removes the
        // deinitializing object's registrations: removing them again is a double removal.
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: false)
        let recorded = releaseObservedModel(controller) { controller, model in
            [
                "\(controller.unobserveAll())", "\(controller.unobserve(model))",
                "\(controller.unobserve(model, keyPath: "value"))",
            ]
        }
        XCTAssertEqual(recorded, ["2", "alreadyRemoved", "alreadyRemoved"])
        XCTAssertEqual(sink.records.map(\.kind), [.doubleRemoval, .doubleRemoval])
        XCTAssertEqual(controller.registrationCount, 0)
    }

    /// Recognizing the object by its table never makes the table earlier than GuardCore's runtime does (a table
    /// changes what other threads' changes of the object do, and so a recorded schedule): a never-observed object has
    /// none until the registration is inserted.
    func testObservingAWeaklyHeldObjectMakesNoTableBeforeTheRuntimeDoes() {
        let observer = GuardTestObserver()
        let (_, controller) = makeController(for: observer, retainsObservedObjects: false)
        let model = SelfRemovingModel { _ in }
        let tableBeforeRegister = LockedBox<Bool?>(nil)
        SchedulePoints.install(atPoints: { point in
            if point == .guardBeforeRegister { tableBeforeRegister.value = model.existingTable != nil }
        })
        let result = controller.observe(model, keyPath: "value") { _, _, _ in }
        SchedulePoints.uninstall()
        XCTAssertEqual(result, .registered)
        XCTAssertEqual(tableBeforeRegister.value, false, "the table existed before the runtime inserted the registration")
        XCTAssertNotNil(model.existingTable)
        XCTAssertTrue(controller.isObserving(model, keyPath: "value"))
    }

    /// An object running its deinit is refused before anything else is looked at (see
    /// GuardObserveInObjectDeinitTests), even for a key path it is still registered for: that registration stays as
    /// it was, and goes with the object.
    func testObservingItselfInItsDeinitIsRefusedAndLeavesItsLiveRegistration() {
        let observer = GuardTestObserver()
        let (sink, controller) = makeController(for: observer, retainsObservedObjects: false)
        let baseline = liveObservances
        let misuses = recordingMisuse {
            let recorded = releaseObservedModel(controller) { controller, model in
                [
                    "\(controller.observe(model, keyPath: "value") { _, _, _ in })",
                    "\(controller.isObserving(model, keyPath: "value"))",
                ]
            }
            XCTAssertEqual(recorded, ["invalid(GuardCore.GuardDiagnostic.InvalidArgument.objectDeinitializing)", "true"])
        }
        XCTAssertEqual(misuses, [])
        XCTAssertEqual(sink.records.map(\.kind), [.invalidArgument])
        XCTAssertEqual(controller.registrationCount, 0)
        XCTAssertEqual(liveObservances, baseline)
    }
}
