/// How an unordered to-many property (a `Set`) changes: Foundation's `NSKeyValueSetMutationKind`, with its raw
/// values. Each kind means what the `Set` operation of the same name does with the objects passed along.
public enum KeyValueSetMutationKind: UInt, Sendable, Hashable, CaseIterable {
    /// The objects are added (`formUnion`); observers get an ``KeyValueChange/Kind/insertion``.
    case union = 1
    /// The objects are removed (`subtract`); observers get a ``KeyValueChange/Kind/removal``.
    case minus = 2
    /// Every object not among the objects is removed (`formIntersection`); observers get a
    /// ``KeyValueChange/Kind/removal``.
    case intersect = 3
    /// The objects replace the set's contents; observers get a ``KeyValueChange/Kind/replacement``.
    case set = 4

    /// The change kind observers receive, as Foundation maps it.
    public var changeKind: KeyValueChange.Kind {
        switch self {
        case .union: .insertion
        case .minus, .intersect: .removal
        case .set: .replacement
        }
    }
}

/// One announced mutation of a set property: its kind and the objects passed along. Worked out against the set's
/// contents when the change begins, as Foundation does: the old value observers get is the set of objects the mutation
/// removes, the new value the set of objects it adds (each only for the kinds that have one).
struct SetMutation {
    let kind: KeyValueSetMutationKind
    let objects: Set<AnyHashable>

    /// The objects the mutation removes from and adds to `current` (the set's value when the change begins; `nil`, or
    /// a value that is not a set, holds no objects).
    func effect(on current: Any?) -> (removed: Set<AnyHashable>, added: Set<AnyHashable>) {
        let contents = current.flatMap { $0 as? Set<AnyHashable> } ?? []
        switch kind {
        case .union: return ([], objects.subtracting(contents))
        case .minus: return (contents.intersection(objects), [])
        case .intersect: return (contents.subtracting(objects), [])
        case .set: return (contents.subtracting(objects), objects.subtracting(contents))
        }
    }

    /// Applies the mutation to `set`.
    static func apply<Element: Hashable>(_ kind: KeyValueSetMutationKind, _ elements: Set<Element>, to set: inout Set<Element>) {
        switch kind {
        case .union: set.formUnion(elements)
        case .minus: set.subtract(elements)
        case .intersect: set.formIntersection(elements)
        case .set: set = elements
        }
    }
}
