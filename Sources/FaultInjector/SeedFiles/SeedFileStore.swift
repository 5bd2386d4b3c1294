import Foundation

/// Reads and writes seed files, turning every way a file can be wrong into a ``SeedFileError``. Version 1 files
/// (chaos runs written before version 2 added the controlled runner's fields) are read as they are.
public enum SeedFileStore {
    /// Reads and validates the seed file at `path`. Its target must be one of `targets` (the built-in ones by
    /// default; a program with systems under test of its own passes their names too).
    public static func read(_ path: String, targets: [String] = TargetCatalog.knownNames) throws(SeedFileError) -> SeedFile {
        let data = try contents(of: path)
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { throw .empty(path: path) }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
        } catch {
            throw .unparsable(error, path: path)
        }
        guard let header = object as? [String: Any] else {
            throw .notAnObject(path: path, found: SeedFileError.describing(object))
        }
        if let (field, scalar) = ControlCharacterField.first(in: header) {
            throw .malformed(
                path: path,
                reason: "the field \"\(field)\" holds the control character \(ControlCharacterField.name(of: scalar)), which no "
                    + "seed file holds (it could forge lines of output)")
        }
        guard let formatValue = header["format"] else { throw missingFormat(path, header: header) }
        guard let format = formatValue as? String else {
            throw .wrongFormat(path: path, found: SeedFileError.describing(formatValue))
        }
        guard format == SeedFile.formatName else { throw .wrongFormat(path: path, found: format) }
        guard let versionNumber = header["version"] as? NSNumber else {
            throw .malformed(path: path, reason: "the field \"version\" is missing or not a number")
        }
        guard let version = Int(exactly: versionNumber.doubleValue) else {
            throw .malformed(path: path, reason: "the field \"version\" must be a whole number, not \(versionNumber)")
        }
        guard SeedFile.readableVersions.contains(version) else {
            throw .unsupportedVersion(path: path, found: version, supported: SeedFile.currentVersion)
        }
        let file: SeedFile
        do {
            file = try JSONDecoder().decode(SeedFile.self, from: data)
        } catch let error as DecodingError {
            throw .undecodable(error, path: path, json: object) { changed in
                _ = try JSONDecoder().decode(SeedFile.self, from: changed)
            }
        } catch {
            throw .malformed(path: path, reason: "\(error)")
        }
        try checkOperationsPresent(in: header, of: file, path: path)
        _ = try file.makeRunnerChoice()
        guard targets.contains(file.target) else { throw .unknownTarget(file.target) }
        _ = try file.makeScenario()
        _ = try file.makeSchedule()
        return file
    }

    /// The bytes of the file at `path`, or why they cannot be read: no such file, a directory, permission denied.
    private static func contents(of path: String) throws(SeedFileError) -> Data {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw .unreadable(path: path, reason: "it is a directory, not a seed file")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            let reason: String
            switch code {
            case ENOENT: reason = "no such file"
            case EACCES, EPERM: reason = "permission denied"
            case EISDIR: reason = "it is a directory, not a seed file"
            default: reason = String(cString: strerror(code)).lowercased()
            }
            throw .unreadable(path: path, reason: reason)
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw .unreadable(path: path, reason: "reading it failed: \(error.localizedDescription)")
        }
    }

    /// The fields every seed file has; a JSON object with none of them is not a seed file at all.
    static let requiredFields = ["format", "version", "target", "runner", "seed", "scenario", "failure", "operations"]

    /// Why a JSON object without `"format"` is not a seed file, naming what it lacks.
    private static func missingFormat(_ path: String, header: [String: Any]) -> SeedFileError {
        let missing = requiredFields.filter { header[$0] == nil }
        if missing.count == requiredFields.count {
            return .malformed(
                path: path,
                reason: (header.isEmpty ? "it is an empty JSON object" : "it has none of a seed file's fields")
                    + "; a seed file has \(requiredFields.map { "\"\($0)\"" }.joined(separator: ", ")) (\"format\" is "
                    + "\"\(SeedFile.formatName)\")")
        }
        return .malformed(
            path: path,
            reason: "the field \"format\" is missing (it is \"\(SeedFile.formatName)\" in every seed file); also missing: "
                + (missing.dropFirst().isEmpty ? "nothing else" : missing.dropFirst().map { "\"\($0)\"" }.joined(separator: ", ")))
    }

    /// A file's operations must be there: a seed file leaves them out (no `"operations"`, or `null`) only for a
    /// scenario of more than ``SeedFile/operationListLimit`` operations, or a round's file written before it ran
    /// (failure `unfinished`), whose seed regenerates them. A smaller file
    /// without them lost them, and replaying it would run operations nobody recorded.
    private static func checkOperationsPresent(
        in header: [String: Any], of file: SeedFile, path: String
    ) throws(SeedFileError) {
        let value = header["operations"]
        // A round's file written before it ran (failure "unfinished") leaves them to its seed by design.
        guard value == nil || value is NSNull, file.failure.signature != SeedFile.unfinishedSignature else { return }
        let count = file.scenario.workers.multipliedReportingOverflow(by: file.scenario.operationsPerWorker)
        guard !count.overflow, count.partialValue <= SeedFile.operationListLimit else { return }
        throw .malformed(
            path: path,
            reason: "the field \"operations\" is \(value == nil ? "missing" : "null"), but its scenario has "
                + "\(count.partialValue) operations: a seed file leaves them out only for more than "
                + "\(SeedFile.operationListLimit) (its seed regenerates them), so this one lost the operations it ran")
    }

    /// Writes `file` into `directory` (created if needed) as `seed-TARGET-SEED.json` (`seed-TARGET-STRATEGY-SEED.json`
    /// for a controlled run, `seed-TARGET-FINDER-SEED.json` where `finder` names what found its schedule, such as
    /// `explore`) and returns its path. An existing file is never overwritten: a numeric suffix is added instead. The
    /// file appears whole or not at all (``AtomicFile``): a failed write leaves no empty or cut-short file under a
    /// seed file's name.
    public static func write(_ file: SeedFile, into directory: String, foundBy finder: String? = nil) throws -> String {
        try DirectoryCreation.ensure(directory)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var data = try encoder.encode(file)
        data.append(0x0A)
        let base = (directory as NSString).appendingPathComponent(baseName(for: file, foundBy: finder))
        return try NumberedFileName.write(data, numbers: 1...) { $0 == 1 ? base + ".json" : "\(base)-\($0).json" }
    }

    /// `seed-TARGET-SEED` (`seed-TARGET-STRATEGY-SEED` for a controlled run, `seed-TARGET-FINDER-SEED` given what
    /// found it): a file's name without extension.
    static func baseName(for file: SeedFile, foundBy finder: String? = nil) -> String {
        "seed-\(file.target)-" + ((finder ?? file.strategy).map { "\($0)-" } ?? "") + file.seed
    }

    /// The deepest nesting of arrays and objects `JSONSerialization` reads; a seed file needs fewer than 10.
    static let maximumNesting = 512
}
