import Foundation

/// Writing a new file under the first free name of a numbered series (`seed.json`, `seed-2.json`, `seed-3.json`, …,
/// or `report.2.json`, `report.3.json`, …: the caller names each number's file), so that it never replaces a file
/// that is already there.
package enum NumberedFileName {
    /// Writes `data` whole (``AtomicFile``, never replacing) to `name(number)` for the first `number` of `numbers`
    /// whose name no file holds, and returns that path. A failure other than a file being there is thrown at once;
    /// when every name in `numbers` is taken, the last name's ``FileWriteError/fileExists`` error is thrown.
    /// `numbers` must not be empty.
    package static func write(
        _ data: Data, numbers: some Sequence<Int>, name: (Int) -> String
    ) throws(FileWriteError) -> String {
        var taken: FileWriteError?
        for number in numbers {
            let path = name(number)
            do {
                try AtomicFile.write(data, to: path, replacing: false)
                return path
            } catch where error.fileExists {
                taken = error
            }
        }
        guard let taken else { preconditionFailure("NumberedFileName.write needs at least one number") }
        throw taken
    }
}
