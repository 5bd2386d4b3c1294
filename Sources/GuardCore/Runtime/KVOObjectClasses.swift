import GuardCoreAtomics

/// Whether a class is ``KVOObject`` or a subclass, asked on every observe and unobserve: a dynamic cast answers by
/// walking the class's superclasses in the Swift runtime, so the last few classes found to be ``KVOObject``s are
/// remembered.
///
/// Each word remembers one such class by its metadata address. A ``KVOObject`` class is a Swift class, whose metadata
/// is never freed, so no other class ever has that address: a word that names the class asked about answers yes.
/// Only yes is remembered (another class, an Objective-C one for instance, might be freed and its address reused).
/// Words are read and written with relaxed atomics: a thread that reads a word another thread is replacing sees
/// either class whole, or asks the runtime again.
enum KVOObjectClasses {
    /// Whether instances of `type` are ``KVOObject``s.
    @inline(__always)
    static func contains(_ type: AnyObject.Type) -> Bool {
        let metadata = UInt64(UInt(bitPattern: ObjectIdentifier(type)))
        let word = AtomicWord(gca_kvo_class_word(metadata))
        if word.load(ordering: .relaxed) == metadata { return true }
        return answer(for: type, metadata: metadata, in: word)
    }

    /// Asks the runtime, and remembers a yes in `word` (replacing another class).
    @inline(never)
    private static func answer(for type: AnyObject.Type, metadata: UInt64, in word: AtomicWord) -> Bool {
        guard type is KVOObject.Type else { return false }
        word.store(metadata, ordering: .relaxed)
        return true
    }
}
