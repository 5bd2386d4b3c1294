import GuardCoreAtomics

/// Reads and writes `weak` and `unowned` stored properties through the Swift runtime's own loads and stores of such
/// references, never by treating their storage as a strong reference.
///
/// A field's storage has the layout of its declared type (`Person?`, `(any Delegate)?`, `Person`) with the first word
/// being the reference storage instead of a strong reference; the words after it, a class-bound existential's witness
/// tables, are plain. A read loads the object strongly (+1) through the runtime and builds the value from that and the
/// witness tables; a write hands the new object to the runtime's assignment and copies the witness tables.
enum ReferenceFieldAccess {
    /// Which runtime operations the storage needs.
    enum Kind: Sendable {
        case weak
        case unowned
    }

    /// Whether a field of `type` can be accessed this way: a class reference, a class-bound existential or an
    /// `Optional` of one, whose size is a whole number of words, the first the reference.
    static func canAccess(_ type: Any.Type) -> Bool {
        func check<Value>(_: Value.Type) -> Bool {
            let word = MemoryLayout<UnsafeRawPointer>.size
            let size = MemoryLayout<Value>.size
            return size >= word && size % word == 0 && MemoryLayout<Value>.alignment == word
        }
        return _openExistential(type, do: check)
    }

    /// The value of the field of type `Value` whose storage is at `address`, `nil` if it is nil (a `weak` one whose
    /// object is gone reads `nil`). Reading an `unowned` field whose object has been deinitialized stops the process,
    /// as reading the property in Swift does.
    static func read<Value>(_: Value.Type, kind: Kind, at address: UnsafeRawPointer) -> Any? {
        let storage = UnsafeMutableRawPointer(mutating: address)
        let loaded = kind == .weak ? gca_weak_load_strong(storage) : gca_unowned_load_strong(storage)
        guard let object = loaded else { return nil }
        let size = MemoryLayout<Value>.size
        return withUnsafeTemporaryAllocation(byteCount: size, alignment: MemoryLayout<Value>.alignment) { buffer in
            let value = buffer.baseAddress!
            value.copyMemory(from: address, byteCount: size)
            // The first word becomes the strong reference just loaded; moving the value out takes that +1 over.
            value.storeBytes(of: object, as: UnsafeMutableRawPointer.self)
            return flattenOptional(value.assumingMemoryBound(to: Value.self).move())
        }
    }

    /// Stores `newValue` into the field of type `Value` whose storage is at `address` (which holds a reference of
    /// that kind already). `newValue` is copied: the field takes a weak or unowned reference of its own.
    static func write<Value>(_ newValue: Value, kind: Kind, at address: UnsafeMutableRawPointer) {
        withUnsafeTemporaryAllocation(of: Value.self, capacity: 1) { buffer in
            let value = buffer.baseAddress!
            value.initialize(to: newValue)
            let raw = UnsafeMutableRawPointer(value)
            let object = raw.load(as: UnsafeMutableRawPointer?.self)
            if kind == .weak { gca_weak_assign(address, object) } else { gca_unowned_assign(address, object) }
            let word = MemoryLayout<UnsafeRawPointer>.size
            let size = MemoryLayout<Value>.size
            if size > word { (address + word).copyMemory(from: raw + word, byteCount: size - word) }
            value.deinitialize(count: 1)
        }
    }
}
