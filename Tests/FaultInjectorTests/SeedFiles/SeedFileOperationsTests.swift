@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import XCTest

/// A seed file's operations: left out only where its seed regenerates them on purpose.
final class SeedFileOperationsTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("fi-seed-operations")
    }

    override func tearDown() {
        directory?.remove()
        directory = nil
    }

    /// A seed file leaves its operations out only for a scenario too large to list: a smaller file without them
    /// (missing or `null`) lost them and is refused, never replayed with operations regenerated from its seed.
    func testSeedFileWithoutOperationsIsRefusedUnlessItsScenarioIsTooLargeToList() throws {
        for (name, edit) in [("missing", { (file: inout [String: Any]) in file["operations"] = nil }),
                             ("null", { (file: inout [String: Any]) in file["operations"] = NSNull() })] {
            let path = try directory.write(try RunFixtures.editedRawSeedFile(edit), to: "\(name).json")
            XCTAssertThrowsError(try SeedFileStore.read(path), name) { error in
                XCTAssertTrue("\(error)".contains("\"operations\" is \(name)"), "\(error)")
                XCTAssertTrue("\(error)".contains("lost the operations"), "\(error)")
            }
        }
        let large = try RunFixtures.editedRawSeedFile { file in
            file["operations"] = nil
            RunFixtures.setScenarioField("workers", to: 64, in: &file)
            RunFixtures.setScenarioField("operationsPerWorker", to: 4_000, in: &file)
        }
        let file = try SeedFileStore.read(try directory.write(large, to: "large.json"))
        XCTAssertNil(file.operations)
        XCTAssertEqual(try file.makeScenario().operationCount, 256_000, "regenerated from the seed")
    }
}
