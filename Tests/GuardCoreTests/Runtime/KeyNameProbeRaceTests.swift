// While one thread names a key path by probing (reading it and recording which `@Observed` getters run), other threads
// read `@Observed` properties as usual: those reads must stay reads.
import Dispatch
import Foundation
@testable import GuardCore
import XCTest

final class KeyNameProbeRaceTests: XCTestCase {
    /// A model whose settable computed property (named only by probing, since nothing in its key path says it is not
    /// an `@Observed` one) waits in its getter until the test lets it go, so a probe stays under way.
    private final class Model: KVOObject, @unchecked Sendable {
        @Observed var count = 0
        let probeEntered = DispatchSemaphore(value: 0)
        let probeMayFinish = DispatchSemaphore(value: 0)

        var heldCount: Int {
            get {
                probeEntered.signal()
                probeMayFinish.wait()
                return count
            }
            set { count = newValue }
        }
    }

    /// `Observed`'s getter takes its storage's address (a modifying access) only on the probing thread
    /// (`KeyNameProbe.isProbingOnCurrentThread`). Eight threads read one property of one object at once while another
    /// thread's probe is under way: every read gives the stored value, and under ThreadSanitizer (`scripts/tsan.sh`
    /// runs this test) there is no report, which there was when every thread took the address while any probe ran.
    func testReadsOnOtherThreadsWhileAProbeIsUnderWayStayReads() {
        let model = Model()
        model.count = 7
        let probeDone = DispatchSemaphore(value: 0)
        let probeName = LockedBox<String?>("unset")
        Thread {
            probeName.value = KeyNameProbe.keyPathString(for: \Model.heldCount, on: model)
            probeDone.signal()
        }.start()
        XCTAssertEqual(model.probeEntered.wait(timeout: .now() + 60), .success, "the probe read the key path")
        XCTAssertNotEqual(KeyNameProbe.activeProbes.load(ordering: .relaxed), 0, "a probe is under way")
        XCTAssertFalse(KeyNameProbe.isProbingOnCurrentThread, "this thread is not the probing one")

        let readers = 8
        let gate = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        let wrongReads = LockedBox(0)
        for _ in 0..<readers {
            finished.enter()
            Thread {
                gate.wait()
                var wrong = 0
                for _ in 0..<20_000 where model.count != 7 { wrong += 1 }
                wrongReads.mutate { $0 += wrong }
                finished.leave()
            }.start()
        }
        for _ in 0..<readers { gate.signal() }
        XCTAssertEqual(finished.wait(timeout: .now() + 120), .success, "every reader finished")
        model.probeMayFinish.signal()
        XCTAssertEqual(probeDone.wait(timeout: .now() + 60), .success, "the probe finished")
        XCTAssertEqual(wrongReads.value, 0, "a read during the probe gave another value than the stored one")
        XCTAssertEqual(probeName.value, nil as String?, "a computed property that reads another one has no name")
        XCTAssertEqual(KeyNameProbe.activeProbes.load(ordering: .relaxed), 0, "the probe ended")
    }
}
