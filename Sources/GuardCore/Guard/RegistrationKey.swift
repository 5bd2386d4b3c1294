/// The guard's deduplication key within one controller: (object identity, key path).
struct RegistrationKey: Hashable, Sendable {
    let object: ObjectIdentifier
    let keyPath: String
}
