/// Naming a key path step by step: what ``KeyNameProbe`` does for key paths with optional chains or force unwraps
/// (`\.link?.age`, `\.link!.age`), and to describe a key path it cannot name.
extension KeyNameProbe {
    /// What step-by-step naming found: a name per component (`nil` where none), and whether every name is certain.
    struct ChainNaming {
        var names: [String?] = []
        /// Every name was read off the component itself (none was inferred from a type).
        var isCertain = true
        /// The walk matched every component the key path stores.
        var isComplete = false

        /// The dotted key path, if every component has a name.
        var name: String? {
            guard isComplete, !names.isEmpty, names.allSatisfy({ $0 != nil }) else { return nil }
            return names.map { $0! }.joined(separator: ".")
        }
    }

    /// Names each component of `keyPath` (printed as `steps`, rooted at `rootType`, leading to `valueType`) on
    /// `object`, one at a time, never evaluating the key path as a whole:
    ///
    /// - a plain stored property of a ``KVOObject`` by its printed name, reading its storage to go on;
    /// - an `@Observed` property by calling the component's own getter (``KeyPathComponentGetter``) on the object the
    ///   chain has reached, and checking that exactly that property's accessor ran (the same identity). Past a `nil`
    ///   link, where the chain reaches no object, the getter runs on an object of the same class the chain went
    ///   through (the root, say, for `\Profile.link?.age`), whose value is not used;
    /// - past a `nil` link with no such object, from its type: the one `@Observed` property of its class with that
    ///   value type, if exactly one (an inferred name, not a certain one).
    ///
    /// Only a settable computed component without arguments whose type is that of an `@Observed` property of its class
    /// is ever read (as ``keyPathString(for:on:)`` does); anything else has no name, and neither has any component
    /// after it.
    static func chainNaming(
        of keyPath: AnyKeyPath, steps: [KeyPathRendering.Step], valueType: Any.Type, rootType: Any.Type,
        on object: KVOObject
    ) -> ChainNaming {
        var naming = ChainNaming()
        guard let stored = KeyPathStorage.components(of: keyPath) else {
            naming.names = Array(repeating: nil, count: steps.count)
            return naming
        }
        var walk = Walk(root: object, rootType: rootType)
        var position = 0
        for step in steps {
            // The component, then one optional component per `?` or `!` printed after it.
            guard position + step.unwraps.count < stored.count, stored[position].kind != .optional,
                stored[(position + 1)..<(position + 1 + step.unwraps.count)].allSatisfy({ $0.kind == .optional })
            else { break }
            let component = stored[position]
            let last = stored[position + step.unwraps.count]
            position += 1 + step.unwraps.count
            let isLastComponent = position == stored.count || stored[position...].allSatisfy { $0.kind == .optional }
            guard let componentType = component.leadsTo ?? (isLastComponent ? valueType : nil),
                let name = walk.name(step.component, stored: component, valueType: componentType, naming: &naming)
            else { break }
            naming.names.append(name)
            guard let next = last.leadsTo else {
                naming.isComplete = naming.names.count == steps.count && position == stored.count
                break
            }
            walk.rootType = next
        }
        naming.names += Array(repeating: nil, count: steps.count - naming.names.count)
        return naming
    }

    /// Where the naming walk stands: the object the chain reached (`nil` past a `nil` link), the class it names
    /// components of, and every object it went through.
    private struct Walk {
        var current: KVOObject?
        var rootType: Any.Type
        var visited: [KVOObject]

        init(root: KVOObject, rootType: Any.Type) {
            current = root
            self.rootType = rootType
            visited = [root]
        }

        /// Names one component and moves the walk past it; `nil` if it has no name.
        mutating func name(
            _ printed: KeyPathRendering.Component, stored component: KeyPathStorage.Component, valueType: Any.Type,
            naming: inout ChainNaming
        ) -> String? {
            guard let type = rootType as? KVOObject.Type else { return nil }
            let table = StoredPropertyTable.for(type)
            switch (printed, component.kind) {
            case (.stored(let name), .stored):
                guard !name.hasPrefix("_"), name != "self", let property = table.property(named: name),
                    !property.isObserved
                else { return nil }
                advance(to: current.flatMap { property.read(from: $0) })
                return name
            case (.computed(let printedType), .computed):
                guard component.isSettable, !component.hasArguments, let getter = component.getter,
                    let getterAddress = UnsafeRawPointer(bitPattern: getter)
                else { return nil }
                let candidates = table.keys.filter { key in
                    guard let property = table.property(named: key), property.isObserved else { return false }
                    return String(describing: property.valueType) == printedType
                }
                guard !candidates.isEmpty else { return nil }
                guard let instance = instance(of: type) else {
                    guard candidates.count == 1 else { return nil }
                    naming.isCertain = false
                    advance(to: nil)
                    return candidates[0]
                }
                var value: Any?
                let recorded = KeyNameProbe.recordSteps {
                    value = KeyPathComponentGetter.value(of: getterAddress, on: instance, valueType: valueType)
                }
                guard recorded.count == 1, let read = recorded.first,
                    KeyPathStorage.components(of: read.wrapped)?.first?.identity == component.identity,
                    let name = ObservedKey.storageName(atOffset: read.storageOffset, in: read.objectType)
                else { return nil }
                // A value read from a stand-in for a `nil` link is not the chain's.
                advance(to: instance === current ? value.flatMap(flattenOptional) : nil)
                return name
            default:
                return nil
            }
        }

        /// The object the chain reached, if it is one of `type`, else the last one it went through that is.
        private func instance(of type: KVOObject.Type) -> KVOObject? {
            if let current, Self.isInstance(current, of: type) { return current }
            return visited.last { Self.isInstance($0, of: type) }
        }

        private mutating func advance(to value: Any?) {
            current = value as? KVOObject
            if let current { visited.append(current) }
        }

        private static func isInstance(_ object: KVOObject, of type: KVOObject.Type) -> Bool {
            var candidate: AnyClass? = Swift.type(of: object)
            while let current = candidate {
                if current == type { return true }
                candidate = _getSuperclass(current)
            }
            return false
        }
    }

    /// Whether `keyPath` force-unwraps an optional along the way (`\.link!.age`): evaluating it may trap.
    static func hasForceUnwrap<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> Bool {
        KeyPathRendering.steps(of: keyPath, root: Root.self)?.contains { $0.unwraps.contains("!") } ?? true
    }

    /// `keyPath` as a reader can follow it (`\Profile.link?.<computed: Int>`), naming every component it can, for
    /// messages about a key path without a name.
    @usableFromInline
    static func readableDescription<Root: KVOObject, Value>(of keyPath: KeyPath<Root, Value>, on object: Root) -> String {
        guard let steps = KeyPathRendering.steps(of: keyPath, root: Root.self) else { return String(describing: keyPath) }
        let naming = chainNaming(of: keyPath, steps: steps, valueType: Value.self, rootType: Root.self, on: object)
        return KeyPathRendering.readable(keyPath, root: Root.self, names: naming.names)
    }
}
