@testable import FaultInjector
import GuardCore
import XCTest

/// A controlled run's history digest is what tells an exact replay from a different run, so it must be the same in
/// every process that records the same thing, and differ when anything recorded differs.
final class HistoryDigestTests: XCTestCase {
    private func history(diagnosticKeyPath keyPath: String) -> History {
        var history = History()
        history.diagnostics = [
            DiagnosticRecord(
                kind: .invalidArgument, reason: .unobservableKeyPath, keyPath: keyPath, operation: 4_294_967_303,
                worker: 0, time: 224, objectAddress: 0x5594_0000_1000)
        ]
        return history
    }

    func testTheAccessorAddressesOfAnUnnamedKeyPathDoNotChangeTheDigest() {
        // How Swift renders a key path to a computed property in two processes: its accessors move with the
        // address space layout.
        let here = history(diagnosticKeyPath: "\\StressObject.<computed 0x000055f2a9b53ea0 (Optional<StressObject>)>!.<computed 0x000055f2a9b53ec0 (Int)>")
        let elsewhere = history(diagnosticKeyPath: "\\StressObject.<computed 0x000055e18588cea0 (Optional<StressObject>)>!.<computed 0x000055e18588cec0 (Int)>")
        XCTAssertEqual(here.digest, elsewhere.digest)
    }

    func testAnythingElseInTheKeyPathChangesTheDigest() {
        let computed = history(diagnosticKeyPath: "\\StressObject.<computed 0x000055f2a9b53ea0 (Int)>")
        XCTAssertNotEqual(computed.digest, history(diagnosticKeyPath: "\\StressObject.<computed 0x000055f2a9b53ea0 (String)>").digest)
        XCTAssertNotEqual(computed.digest, history(diagnosticKeyPath: "\\StressObject.<computed 0x000055f2a9b53ea0 (Int)>!").digest)
        XCTAssertNotEqual(history(diagnosticKeyPath: "k0").digest, history(diagnosticKeyPath: "k1").digest)
        XCTAssertNotEqual(history(diagnosticKeyPath: "0x1").digest, history(diagnosticKeyPath: "0x").digest)
    }

    func testAddressesAreReplacedAndTheRestKept() {
        XCTAssertEqual(History.withoutAddresses("a 0x00ff b 0xG 0x"), "a 0x? b 0xG 0x")
        XCTAssertEqual(History.withoutAddresses("peer.k0"), "peer.k0")
        XCTAssertEqual(History.withoutAddresses(""), "")
    }
}
