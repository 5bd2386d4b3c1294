/// A command line guard-stress cannot act on; reported on stderr with exit code 2.
struct UsageError: Error {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
