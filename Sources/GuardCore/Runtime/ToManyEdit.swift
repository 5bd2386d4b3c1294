import Foundation

/// One insertion, removal or replacement of elements at indexes of an array, checked before anything is announced:
/// the ordered to-many helpers of ``KeyValueObservable`` validate their arguments against the array first, so a bad
/// index set is a reported ``KVOMisuse/Kind/invalidIndexes`` that changes nothing, never a trap halfway through a
/// change.
struct ToManyEdit<Element> {
    /// What the edit does.
    enum Action {
        /// Insert these elements, one per index, so they end up at the indexes (ascending).
        case insert([Element])
        /// Remove the elements at the indexes.
        case remove
        /// Replace the elements at the indexes with these, in order.
        case replace([Element])
    }

    /// Why an index set does not fit an array.
    enum Mismatch: Equatable {
        /// The number of elements differs from the number of indexes.
        case countDiffers(elements: Int, indexes: Int)
        /// An index lies outside what the edit may touch (`validRange`, empty if none).
        case outOfBounds(index: Int, validRange: Range<Int>)
    }

    let action: Action
    let indexes: IndexSet

    /// The change kind observers receive for this edit.
    var kind: KeyValueChange.Kind {
        switch action {
        case .insert: .insertion
        case .remove: .removal
        case .replace: .replacement
        }
    }

    /// Why the edit does not fit an array of `count` elements, or `nil` if it does. An insertion's `k`-th index
    /// (counting from 0, ascending) may be at most `count + k`: each element goes in after the ones before it.
    func mismatch(withArrayOf count: Int) -> Mismatch? {
        switch action {
        case .insert(let elements):
            if elements.count != indexes.count {
                return .countDiffers(elements: elements.count, indexes: indexes.count)
            }
            for (offset, index) in indexes.enumerated() where index < 0 || index > count + offset {
                return .outOfBounds(index: index, validRange: 0..<(count + offset + 1))
            }
            return nil
        case .replace(let elements):
            if elements.count != indexes.count {
                return .countDiffers(elements: elements.count, indexes: indexes.count)
            }
            return outOfBounds(count: count)
        case .remove:
            return outOfBounds(count: count)
        }
    }

    private func outOfBounds(count: Int) -> Mismatch? {
        guard let first = indexes.first, let last = indexes.last else { return nil }
        if first < 0 { return .outOfBounds(index: first, validRange: 0..<count) }
        if last >= count { return .outOfBounds(index: last, validRange: 0..<count) }
        return nil
    }

    /// Applies the edit to `array` if it fits (checked again: the array may have changed since the caller checked)
    /// and says whether it did; an edit that does not fit leaves `array` as it was.
    func apply(to array: inout [Element]) -> Bool {
        guard mismatch(withArrayOf: array.count) == nil else { return false }
        switch action {
        case .insert(let elements):
            for (element, index) in zip(elements, indexes) { array.insert(element, at: index) }
        case .remove:
            for range in indexes.rangeView.reversed() { array.removeSubrange(range) }
        case .replace(let elements):
            for (element, index) in zip(elements, indexes) { array[index] = element }
        }
        return true
    }

    /// The Foundation method this edit stands for, as its exception messages name it.
    var foundationSelector: String {
        switch action {
        case .insert: "insertObjects:atIndexes:"
        case .remove: "removeObjectsAtIndexes:"
        case .replace: "replaceObjectsAtIndexes:withObjects:"
        }
    }
}
