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

    /// One component and the optional steps printed after it: `?` (an optional chain, or wrapping the key path's
    /// last value as an optional) and `!` (a force unwrap).
    struct Step: Equatable {
        let component: Component
        let unwraps: [Character]
    }

    /// The components of `keyPath` rooted at `root`, or `nil` if the key path has an optional chain or force
    /// unwrap, or its printed form cannot be read.
    static func components(of keyPath: AnyKeyPath, root: Any.Type) -> [Component]? {
        guard let steps = steps(of: keyPath, root: root), steps.allSatisfy(\.unwraps.isEmpty) else { return nil }
        return steps.map(\.component)
    }

    /// The components of `keyPath` rooted at `root`, each with the optional steps after it, or `nil` if its printed
    /// form cannot be read.
    static func steps(of keyPath: AnyKeyPath, root: Any.Type) -> [Step]? {
        let text = String(describing: keyPath)
        let prefix = "\\" + String(describing: root)
        guard text.hasPrefix(prefix) else { return nil }
        var rest = Substring(text.unicodeScalars.dropFirst(prefix.unicodeScalars.count))
        var steps: [Step] = []
        while !rest.isEmpty {
            guard rest.first == "." else { return nil }
            rest = rest.dropFirst()
            let component: Component
            if rest.hasPrefix("<computed ") {
                guard let (valueType, after) = computedValueType(in: rest) else { return nil }
                component = .computed(valueType: valueType)
                rest = after
            } else {
                let name = rest.prefix { $0 != "." && $0 != "?" && $0 != "!" }
                guard !name.isEmpty else { return nil }
                component = .stored(String(name))
                rest = rest.dropFirst(name.count)
            }
            let unwraps = rest.prefix { $0 == "?" || $0 == "!" }
            rest = rest.dropFirst(unwraps.count)
            steps.append(Step(component: component, unwraps: Array(unwraps)))
        }
        return steps.isEmpty ? nil : steps
    }

    /// `keyPath` as a reader can follow it: `\Profile.link?.<computed: Int>`, each component by `names` where it has
    /// one (`nil` for a component without), else as a stored property's name or a computed one's (or a subscript's)
    /// value type. The printed form (with accessor
    /// addresses in place of names) when its components cannot be read.
    static func readable(_ keyPath: AnyKeyPath, root: Any.Type, names: [String?]) -> String {
        guard let steps = steps(of: keyPath, root: root) else { return String(describing: keyPath) }
        var text = "\\" + String(describing: root)
        for (index, step) in steps.enumerated() {
            text += "."
            if index < names.count, let name = names[index] {
                text += name
            } else {
                switch step.component {
                case .stored(let name): text += name
                case .computed(let valueType): text += "<computed: \(valueType)>"
                }
            }
            // A `?` after the last component wraps the key path's value as an optional: not written in the source.
            let isLast = index == steps.count - 1
            text += String(isLast && step.unwraps.last == "?" ? step.unwraps.dropLast() : step.unwraps[...])
        }
        return text
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
