@testable import FaultInjector
import FaultInjectorTestSupport
import Foundation
import XCTest

/// A test case that writes seed files into its own temporary directory and checks how reading them is refused.
protocol SeedFileReadingTestCase: XCTestCase {
    /// Where the test writes its seed files.
    var directory: TemporaryDirectory! { get }
}

extension SeedFileReadingTestCase {
    /// Reads `path`, failing the test if it is accepted, and returns the error it was refused with.
    func readError(_ path: String, file: StaticString = #filePath, line: UInt = #line) -> SeedFileError? {
        do {
            let read = try SeedFileStore.read(path)
            XCTFail("\(path) was accepted: \(read.target) \(read.seed)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    /// Writes the raw seed file `edit` changes and returns the error reading it was refused with, and its path.
    func readEdited(_ edit: (inout [String: Any]) -> Void, file: StaticString = #filePath, line: UInt = #line) throws -> (SeedFileError?, String) {
        let path = try directory.write(RunFixtures.editedRawSeedFile(edit), to: "edited.json")
        return (readError(path, file: file, line: line), path)
    }

    /// Asserts `error` is `.nonsensical` and its reason mentions `phrase`.
    func assertNonsensical(_ error: SeedFileError?, mentioning phrase: String, file: StaticString = #filePath, line: UInt = #line) {
        guard case .nonsensical(let reason) = error else {
            return XCTFail("expected .nonsensical, got \(String(describing: error))", file: file, line: line)
        }
        XCTAssertTrue(reason.contains(phrase), "\"\(reason)\" does not mention \"\(phrase)\"", file: file, line: line)
    }

    /// Asserts `error` is `.malformed` for `path` and its reason mentions `phrase`.
    func assertMalformed(
        _ error: SeedFileError?, path: String, mentioning phrase: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        guard case .malformed(let errorPath, let reason) = error else {
            return XCTFail("expected .malformed, got \(String(describing: error))", file: file, line: line)
        }
        XCTAssertEqual(errorPath, path, file: file, line: line)
        XCTAssertTrue(reason.contains(phrase), "\"\(reason)\" does not mention \"\(phrase)\"", file: file, line: line)
    }

    /// Writes the controlled seed file `edit` changes and returns the error reading it was refused with.
    func readControlled(_ edit: (inout [String: Any]) -> Void, file: StaticString = #filePath, line: UInt = #line) throws -> SeedFileError? {
        let path = try directory.write(RunFixtures.editedControlledSeedFile(edit), to: "controlled.json")
        return readError(path, file: file, line: line)
    }

    /// Asserts the controlled seed file `edit` changes is refused as `.nonsensical`, with a reason mentioning `phrase`.
    func assertControlledRejected(
        _ edit: (inout [String: Any]) -> Void, mentioning phrase: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        assertNonsensical(try readControlled(edit, file: file, line: line), mentioning: phrase, file: file, line: line)
    }
}
