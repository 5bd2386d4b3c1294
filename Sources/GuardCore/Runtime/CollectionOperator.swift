import Foundation

/// The collection operators of key-value coding reads (Key-Value Coding Programming Guide, "Using Collection
/// Operators"): `items.@count`, `items.@sum.price`. The key path after the operator (the right key path) is read from
/// every element (see ``CollectionKeyValueCoding``); every operator but `@count` needs one.
///
/// - `@count`: the number of elements, an `Int` (the right key path, if any, is ignored).
/// - `@sum`: the sum of the values, an `NSNumber` (an `NSDecimalNumber` when a value is a `Decimal`; `as? Int` and
///   `as? Double` read it). Nil values count as 0; a `Bool` counts as 0 or 1. An empty collection sums to 0.
/// - `@avg`: the sum divided by the number of elements (nil values count as 0), an `NSNumber`; `nil` for an empty
///   collection, as Foundation answers.
/// - `@max`, `@min`: the largest or smallest value, compared as numbers when both are numbers and otherwise with
///   their `Comparable` order; nil values are skipped; `nil` when there is none.
/// - `@unionOfObjects`: an array of the values, nil ones left out, duplicates kept. `@distinctUnionOfObjects`: the
///   same with each value once (equal `Hashable` values, or the same object), in the order of first appearance.
/// - `@unionOfArrays`, `@distinctUnionOfArrays`, `@distinctUnionOfSets`: the values are collections; an array of
///   their elements, all of them or each once.
///
/// A value an operator cannot work with (text for `@sum`, values of unrelated types for `@max`) is the misuse
/// ``KVOMisuse/Kind/typeMismatch``; an operator Foundation does not have, or one without the right key path it needs,
/// is ``KVOMisuse/Kind/unknownCollectionOperator``. Either way the read gives `nil`.
enum CollectionOperator: String, CaseIterable, Sendable {
    case count, sum, avg, max, min
    case unionOfObjects, distinctUnionOfObjects, unionOfArrays, distinctUnionOfArrays, distinctUnionOfSets

    /// Applies the operator named `name` (without its `@`) to `collection`; `keyPath` is the key path from the
    /// operator on, for messages.
    static func apply(
        _ name: String, to collection: any KeyValueCodingCollection, rightKeyPath: String?, keyPath: String
    ) -> Any? {
        let elements = collection.keyValueCodingElements
        guard let found = CollectionOperator(rawValue: name), found == .count || rightKeyPath != nil else {
            CollectionKeyValueCoding.report(
                MisuseMessages.unknownCollectionOperator(
                    name, of: collection, keyPath: keyPath, hasRightKeyPath: rightKeyPath != nil))
            return nil
        }
        guard found != .count, let rightKeyPath else { return elements.count }
        // Each operator reads its right key path one step deeper (see ``ChainDepth``): a key path of operators
        // nested in each other cannot overflow the stack.
        let result = ChainDepth.step { () -> Any?? in
            let values = elements.map { CollectionKeyValueCoding.value(of: $0, forKeyPath: rightKeyPath) }
            return found.compute(values, elementCount: elements.count, of: collection, keyPath: keyPath)
        }
        guard let computed = result else {
            CollectionKeyValueCoding.report(MisuseMessages.readTooDeep(keyPath: keyPath, in: collection))
            return nil
        }
        // `.none` when a value the operator cannot work with was reported.
        guard let value = computed else { return nil }
        return value
    }

    /// The operator's result over the right key path's `values` (one per element); `.none` after reporting a value
    /// it cannot work with.
    private func compute(_ values: [Any?], elementCount: Int, of collection: Any, keyPath: String) -> Any?? {
        let present = values.compactMap { $0 }
        switch self {
        case .count:
            return .some(elementCount)
        case .sum, .avg:
            var sum = NumericSum()
            for value in present where !sum.add(value) {
                return mismatch(value, needs: "numbers", of: collection, keyPath: keyPath)
            }
            if self == .sum { return .some(sum.number) }
            return .some(elementCount == 0 ? nil : sum.average(over: elementCount))
        case .max, .min:
            var best: Any?
            for value in present {
                guard let current = best else {
                    best = value
                    continue
                }
                guard let order = Self.compare(current, value) else {
                    return mismatch(value, needs: "values that compare with each other", of: collection, keyPath: keyPath)
                }
                if order == (self == .max ? .orderedAscending : .orderedDescending) { best = value }
            }
            return .some(best)
        case .unionOfObjects:
            return .some(present)
        case .distinctUnionOfObjects:
            return .some(Self.distinct(present))
        case .unionOfArrays, .distinctUnionOfArrays, .distinctUnionOfSets:
            var union: [Any] = []
            for value in present {
                guard let inner = value as? any KeyValueCodingCollection else {
                    return mismatch(value, needs: "arrays or sets", of: collection, keyPath: keyPath)
                }
                union += inner.keyValueCodingElements
            }
            return .some(self == .unionOfArrays ? union : Self.distinct(union))
        }
    }

    private func mismatch(_ value: Any, needs: String, of collection: Any, keyPath: String) -> Any?? {
        CollectionKeyValueCoding.report(
            MisuseMessages.typeMismatch(inOperator: rawValue, of: collection, keyPath: keyPath, value: value, needs: needs))
        return .none
    }

    /// `values` with each one once, in the order of first appearance: `Hashable` values by equality, other objects by
    /// identity (a value that is neither is kept every time).
    private static func distinct(_ values: [Any]) -> [Any] {
        var seen: Set<AnyHashable> = []
        var seenObjects: Set<ObjectIdentifier> = []
        return values.filter { value in
            if let hashable = value as? AnyHashable { return seen.insert(hashable).inserted }
            if type(of: value) is AnyClass { return seenObjects.insert(ObjectIdentifier(value as AnyObject)).inserted }
            return true
        }
    }

    /// How `a` compares with `b`: as numbers if both are numbers, else in their `Comparable` order if they are of the
    /// same comparable type; `nil` if they cannot be compared.
    static func compare(_ a: Any, _ b: Any) -> ComparisonResult? {
        if let x = NumericValue(a), let y = NumericValue(b) { return x.compare(with: y) }
        guard let comparable = a as? any Comparable else { return nil }
        func order<Value: Comparable>(_ a: Value) -> ComparisonResult? {
            guard let b = b as? Value else { return nil }
            return a < b ? .orderedAscending : (b < a ? .orderedDescending : .orderedSame)
        }
        return order(comparable)
    }
}
