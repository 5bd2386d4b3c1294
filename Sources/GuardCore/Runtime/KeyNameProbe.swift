import GuardCoreAtomics

/// Finds the string key behind a Swift key path such as `\Person.age` or `\Person.account.balance`.
///
/// Swift key paths carry no names at run time. A key path of plain stored properties is named from its printed
/// form (``KeyPathRendering``). Otherwise the probe reads the key path once on a live object while recording which
/// ``Observed`` accessors run; a key path that is exactly a chain of `@Observed` properties gets their names joined
/// by dots. Results are cached per key path.
///
/// A key path with optional chains or force unwraps (`\.link?.age`, `\.link!.age`) is named as Foundation's
/// `observe(\.link?.age)` names it, `link.age`, step by step (see ``chainNaming(of:steps:valueType:rootType:on:)``):
/// it is never evaluated as a whole, so a force unwrap of a `nil` link never traps.
///
/// Naming never evaluates a key path that could trap: one with a component that cannot be an `@Observed`
/// property or a stored property of a ``KVOObject`` (judged from the printed value type of each component against
/// the classes' stored properties), nor a read-only one (every `@Observed` chain is settable, so a read-only key path
/// goes through some computed property: `var first: Int { items[0] }` could trap). The key path's own storage
/// (``KeyPathStorage``) is read first, without evaluating anything: a key path with a subscript (`\.[5]`,
/// `\.items[0]`, whose printed form looks like a property's) or a read-only computed component anywhere along it has
/// no name and is never read, and neither is one whose storage cannot be read. The only user code a probe can run is
/// the getter of a settable computed property (no subscript) whose value type is that of an `@Observed` property of
/// the same class; it then has no name either.
@usableFromInline
enum KeyNameProbe {
    /// One `@Observed` read: the property's key path, and where its storage lies (in which object, at which
    /// offset), which names it.
    struct Step {
        let wrapped: AnyKeyPath
        let objectType: KVOObject.Type
        let storageOffset: Int
    }

    private final class ThreadState {
        var isRecording = false
        var steps: [Step] = []
    }

    /// How many probes run anywhere; `Observed`'s inlined getter checks it before anything else.
    @inlinable
    static var activeProbes: AtomicWord {
        AtomicWord(gca_active_probes_word())
    }
    private static let threadState = ThreadLocal { ThreadState() }

    /// Whether the calling thread is probing. `Observed`'s getter asks only while ``activeProbes`` is nonzero, and
    /// takes its storage's address only if so, so a probe never makes other threads' reads of a property modify it.
    @usableFromInline
    static var isProbingOnCurrentThread: Bool {
        threadState.valueIfCreated?.isRecording == true
    }
    private static let cache = ReadMostlyCache<AnyKeyPath, String>()

    /// Called by `Observed`'s getter while some thread probes: records the step if this thread is the one.
    /// `storage` is the address of the property's `Observed` storage inside `object`; `wrapped` gives the property's
    /// key path, asked only when the step is recorded (so the getter materializes it only then).
    @usableFromInline
    static func recordIfProbing(wrapped: () -> AnyKeyPath, storage: UnsafeRawPointer, in object: KVOObject) {
        guard let state = threadState.valueIfCreated, state.isRecording else { return }
        let offset = storage - UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        state.steps.append(Step(wrapped: wrapped(), objectType: type(of: object), storageOffset: offset))
    }

    /// The string key path for `keyPath`, read on `object`; `nil` if it cannot be had. A name that is certain is kept
    /// for the key path; one inferred from a type (see ``chainNaming(of:steps:valueType:rootType:on:)``) is worked out
    /// again next time, when the chain may be there to read.
    static func keyPathString<Root: KVOObject, Value>(for keyPath: KeyPath<Root, Value>, on object: Root) -> String? {
        var inferred: String?
        let certain = cache.valueIfPossible(for: keyPath) { () -> String? in
            guard let steps = KeyPathRendering.steps(of: keyPath, root: Root.self) else { return nil }
            if steps.contains(where: { !$0.unwraps.isEmpty }) {
                let naming = chainNaming(of: keyPath, steps: steps, valueType: Value.self, rootType: Root.self, on: object)
                guard let name = naming.name else { return nil }
                if naming.isCertain { return name }
                inferred = name
                return nil
            }
            let components = steps.map(\.component)
            if let storedNames = plainStoredNames(components) { return storedNames }
            guard mayBeObservedChain(components, from: Root.self) else { return nil }
            // Every `@Observed` chain is settable; a read-only key path can only be some computed property, whose
            // getter is the user's code: never read it.
            guard keyPath is ReferenceWritableKeyPath<Root, Value>, isSafeToRead(keyPath, components) else {
                return nil
            }
            let recorded = recordSteps { _ = object[keyPath: keyPath] }
            return name(from: recorded, matching: keyPath)
        }
        return certain ?? inferred
    }

    /// Whether the key path's storage confirms, without evaluating anything, what its printed `components` suggest:
    /// the same number of components of the same kinds, and every computed one a settable property, never a subscript
    /// (whose getter takes arguments: `\.[5]` reads `storage[5]`) and never read-only.
    private static func isSafeToRead(_ keyPath: AnyKeyPath, _ components: [KeyPathRendering.Component]) -> Bool {
        guard let stored = KeyPathStorage.components(of: keyPath), stored.count == components.count else {
            return false
        }
        for (printed, component) in zip(components, stored) {
            switch (printed, component.kind) {
            case (.stored, .stored): continue
            case (.computed, .computed):
                guard component.isSettable, !component.hasArguments else { return false }
            default: return false
            }
        }
        return true
    }

    /// `a.b` for a key path of stored properties only (named by its printed form, never read). The identity key path
    /// (`\.self`, which prints like a property named `self`) names no key.
    private static func plainStoredNames(_ components: [KeyPathRendering.Component]) -> String? {
        var names: [String] = []
        for component in components {
            guard case .stored(let name) = component, !name.hasPrefix("_"), name != "self" else { return nil }
            names.append(name)
        }
        return names.joined(separator: ".")
    }

    /// Whether every step of `components`, starting at `root`, can be a stored or `@Observed` property of a
    /// ``KVOObject`` class (a computed step must have the value type of one of the class's `@Observed` properties).
    /// Only such a key path is read by the probe.
    private static func mayBeObservedChain(_ components: [KeyPathRendering.Component], from root: Any.Type) -> Bool {
        var roots: [Any.Type] = [root]
        for component in components {
            var next: [Any.Type] = []
            for case let type as KVOObject.Type in roots {
                let table = StoredPropertyTable.for(type)
                switch component {
                case .stored(let name):
                    if let property = table.property(named: name), !property.isObserved { next.append(property.valueType) }
                case .computed(let valueType):
                    next += table.observedValueTypes.filter { String(describing: $0) == valueType }
                }
            }
            guard !next.isEmpty else { return false }
            roots = next
        }
        return true
    }

    /// The `@Observed` reads `body` makes on the calling thread, in order.
    static func recordSteps(_ body: () -> Void) -> [Step] {
        let state = threadState.value
        let outer = (state.isRecording, state.steps)
        state.isRecording = true
        state.steps = []
        activeProbes.add(1, ordering: .relaxed)
        body()
        activeProbes.add(-1, ordering: .relaxed)
        let steps = state.steps
        (state.isRecording, state.steps) = outer
        return steps
    }

    private static func name(from steps: [Step], matching keyPath: AnyKeyPath) -> String? {
        guard let first = steps.first else { return nil }
        var composed: AnyKeyPath? = first.wrapped
        for step in steps.dropFirst() {
            composed = composed?.appending(path: step.wrapped)
        }
        guard let composed, sameProperty(composed, keyPath) else { return nil }
        let names = steps.compactMap { ObservedKey.storageName(atOffset: $0.storageOffset, in: $0.objectType) }
        guard names.count == steps.count else { return nil }
        return names.joined(separator: ".")
    }

    /// Equal key paths, or the same property reached from a subclass root (`\Student.age` for `Person.age`).
    private static func sameProperty(_ recorded: AnyKeyPath, _ requested: AnyKeyPath) -> Bool {
        if recorded == requested { return true }
        // Only a key path rooted at a strict subclass of the recorded root can name the same property without being
        // equal; for the same root, inequality means another (computed) property, e.g. `var ageAlias: Int { age }`.
        let recordedRoot = type(of: recorded).rootType
        let requestedRoot = type(of: requested).rootType
        guard recordedRoot != requestedRoot, let recordedClass = recordedRoot as? AnyClass,
            let requestedClass = requestedRoot as? AnyClass, isStrictSubclass(requestedClass, of: recordedClass)
        else { return false }
        // Printed components of computed properties carry accessor addresses (`<computed 0x… (Int)>` on Linux), and
        // a key path rooted at the subclass uses other accessors than one rooted at the declaring class, so compare
        // the printed components with the addresses masked.
        func components(_ keyPath: AnyKeyPath) -> String? {
            let text = String(describing: keyPath)
            return text.firstIndex(of: ".").map { maskingAddresses(text[$0...]) }
        }
        guard let recordedComponents = components(recorded), recordedComponents == components(requested) else {
            return false
        }
        // Masked, a settable computed property of the subclass that reads the recorded one (`var doubled: Int
        // { get { value * 2 } set { ... } }`) prints the same: where only addresses are printed, the components'
        // identities (the same for one property from any root) must match too.
        let recordedIdentities = KeyPathComponentIdentity.computedIdentities(of: recorded)
        let requestedIdentities = KeyPathComponentIdentity.computedIdentities(of: requested)
        guard recordedIdentities != nil || requestedIdentities != nil else { return true }
        return recordedIdentities != nil && recordedIdentities == requestedIdentities
    }

    private static func isStrictSubclass(_ subclass: AnyClass, of base: AnyClass) -> Bool {
        var current: AnyClass? = _getSuperclass(subclass)
        while let candidate = current {
            if candidate == base { return true }
            current = _getSuperclass(candidate)
        }
        return false
    }

    /// `text` with every hexadecimal address (`0x` and its digits) replaced by `0x`.
    private static func maskingAddresses(_ text: Substring) -> String {
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            let rest = text[index...]
            if rest.hasPrefix("0x") {
                result += "0x"
                index = text.index(index, offsetBy: 2)
                while index < text.endIndex, text[index].isHexDigit { index = text.index(after: index) }
            } else {
                result.append(text[index])
                index = text.index(after: index)
            }
        }
        return result
    }
}
