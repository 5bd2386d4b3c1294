/// Reads the printed form of a Swift key path (`String(describing:)`), the only public view of its components.
///
/// `\Person.account.balance` prints as the root type, then one component per step: a stored property by name
/// (`.plainNote`), anything else as `.<computed 0x… (Type)>` with the type of its value (an `@Observed` property
/// is computed: it is reached through the property wrapper's accessors). An optional chain or force unwrap shows
/// as `?` or `!` after its component.
enum KeyPathRendering {
    /// One step of a key path.
    enum Component: Equatable {
        /// A stored property, by name.
        case stored(String)
        /// A computed property or subscript, with the printed type of its value (`Optional<Account>`).
        case computed(valueType: String)
    }

    /// The components of `keyPath` rooted at `root`, or `nil` if the key path has an optional chain or force
    /// unwrap, or its printed form cannot be read.
    static func components(of keyPath: AnyKeyPath, root: Any.Type) -> [Component]? {
        let text = String(describing: keyPath)
        let prefix = "\\" + String(describing: root)
        guard text.hasPrefix(prefix) else { return nil }
        var rest = Substring(text.unicodeScalars.dropFirst(prefix.unicodeScalars.count))
        var components: [Component] = []
        while !rest.isEmpty {
            guard rest.first == "." else { return nil }
            rest = rest.dropFirst()
            if rest.hasPrefix("<computed ") {
                guard let (valueType, after) = computedValueType(in: rest) else { return nil }
                components.append(.computed(valueType: valueType))
                rest = after
            } else {
                let name = rest.prefix { $0 != "." && $0 != "?" && $0 != "!" }
                guard !name.isEmpty else { return nil }
                components.append(.stored(String(name)))
                rest = rest.dropFirst(name.count)
            }
            if rest.first == "?" || rest.first == "!" { return nil }
        }
        return components.isEmpty ? nil : components
    }

    /// Reads `<computed 0x… (Type)>` at the start of `text`: the type, and the text after the closing `>`.
    private static func computedValueType(in text: Substring) -> (String, Substring)? {
        guard let open = text.firstIndex(of: "(") else { return nil }
        var depth = 0
        var index = open
        while index < text.endIndex {
            switch text[index] {
            case "(": depth += 1
            case ")":
                depth -= 1
                if depth == 0 {
                    let type = text[text.index(after: open)..<index]
                    let after = text.index(after: index)
                    guard after < text.endIndex, text[after] == ">" else { return nil }
                    return (String(type), text[text.index(after: after)...])
                }
            default: break
            }
            index = text.index(after: index)
        }
        return nil
    }
}
