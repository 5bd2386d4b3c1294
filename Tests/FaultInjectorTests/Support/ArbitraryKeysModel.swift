@testable import GuardCore

/// A model whose `value(forKey:)` answers every key with a given prefix, so each new such key is a new entry in
/// GuardCore's bounded per-class caches: enough of them make those caches start over.
final class ArbitraryKeysModel: KVOObject, @unchecked Sendable {
    private let prefix: String

    init(prefix: String) {
        self.prefix = prefix
        super.init()
    }

    override func value(forKey key: String) -> Any? {
        key.hasPrefix(prefix) ? key.count : super.value(forKey: key)
    }

    /// Looks up `keys` distinct key paths starting with `prefix` (one that no other caller uses) in GuardCore's
    /// per-class key path cache, as registering each of them would.
    static func flood(keys: Int, named prefix: String) {
        let model = ArbitraryKeysModel(prefix: prefix)
        for index in 0..<keys {
            _ = ObservedClassInfo.keyPathInfo(for: "\(prefix)\(index)", on: model)
        }
    }
}
