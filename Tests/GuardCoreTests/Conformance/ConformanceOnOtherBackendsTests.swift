import Foundation
import GuardCore
import XCTest

/// The conformance suite on the NSObject backend's platform-free half (``TrampolineBackend``) over a simulated
/// Foundation: runs everywhere, Linux included.
final class ConformanceOnSimulatedFoundationTests: ConformanceOnKVORuntimeTests {
    override class var fixture: any BackendFixture { SimulatedFoundationFixture() }

    func testTheSuiteRunsOnTheSimulatedFoundation() {
        let model = SimulatedConformanceModel()
        let observer = ConformanceObserver()
        let controller = ObservationController(observer: observer, backend: fixture.makeBackend())
        controller.observe(object: model, keyPath: "age") { _, _, _ in }
        XCTAssertEqual(model.observanceCount, 1, "the registration reached the simulated Foundation")
        controller.unobserveAll()
        XCTAssertEqual(model.observanceCount, 0)
    }
}

#if canImport(ObjectiveC)
/// The conformance suite on Foundation's own KVO (Apple platforms only).
final class ConformanceOnNSObjectTests: ConformanceOnKVORuntimeTests {
    override class var fixture: any BackendFixture { NSObjectFixture() }

    func testTheSuiteRunsOnFoundationsKVO() {
        let model = NSObjectConformanceModel()
        let observer = ConformanceObserver()
        let controller = ObservationController(observer: observer, backend: fixture.makeBackend())
        controller.observe(object: model, keyPath: "age") { _, _, _ in }
        XCTAssertEqual(NSObjectBackend().registrationCount(on: model), 1)
        XCTAssertNotNil(model.observationInfo, "Foundation holds the registration")
        controller.unobserveAll()
        XCTAssertEqual(NSObjectBackend().registrationCount(on: model), 0)
    }
}
#endif
