// GuardCoreAtomics: the few C11 atomic operations GuardCore needs, on one 64-bit word type.
//
// GuardCore cannot use the Synchronization module (it needs iOS 18 / macOS 15, and ThreadSanitizer reports false
// races for it on Linux). These inline functions compile to plain atomic instructions, are inlined into Swift
// callers, and are understood by ThreadSanitizer. Everything is a 64-bit word: flags, counters, small enums, and
// pointers (as their bit patterns) alike, so there is one type to get right. A few things only the Swift runtime can
// do are asked of it here too: whether an object is running its deinit, and the loads and stores of `weak` and
// `unowned` references.

#ifndef GUARDCORE_ATOMICS_H
#define GUARDCORE_ATOMICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/// One atomic 64-bit word. Zero-filled memory is a valid word holding 0.
typedef struct {
    _Atomic(uint64_t) value;
} gca_word;

static inline uint64_t gca_load_relaxed(gca_word *word) {
    return atomic_load_explicit(&word->value, memory_order_relaxed);
}

static inline uint64_t gca_load_acquire(gca_word *word) {
    return atomic_load_explicit(&word->value, memory_order_acquire);
}

static inline void gca_store_relaxed(gca_word *word, uint64_t value) {
    atomic_store_explicit(&word->value, value, memory_order_relaxed);
}

static inline void gca_store_release(gca_word *word, uint64_t value) {
    atomic_store_explicit(&word->value, value, memory_order_release);
}

static inline uint64_t gca_exchange_acq_rel(gca_word *word, uint64_t value) {
    return atomic_exchange_explicit(&word->value, value, memory_order_acq_rel);
}

/// Strong compare-and-exchange. On failure `*expected` receives the current value.
static inline bool gca_compare_exchange_acq_rel(gca_word *word, uint64_t *expected, uint64_t desired) {
    return atomic_compare_exchange_strong_explicit(
        &word->value, expected, desired, memory_order_acq_rel, memory_order_acquire);
}

/// Adds `delta` (wrapping) and returns the previous value.
static inline uint64_t gca_fetch_add_relaxed(gca_word *word, uint64_t delta) {
    return atomic_fetch_add_explicit(&word->value, delta, memory_order_relaxed);
}

/// Adds `delta` (wrapping) and returns the previous value.
static inline uint64_t gca_fetch_add_acq_rel(gca_word *word, uint64_t delta) {
    return atomic_fetch_add_explicit(&word->value, delta, memory_order_acq_rel);
}

/// Asks the processor to bring the cache line of `address` in, for writing. Only a hint: it reads and writes
/// nothing and never faults, whatever the address (a stale or freed one included).
static inline void gca_prefetch_for_write(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

/// A word alone on its cache line, so a write to one never slows readers of another.
typedef struct {
    gca_word word;
    char padding[56];
} gca_padded_word;

/// GuardCore's process-wide words, with static storage: reaching one costs no lazy-initialization check (a Swift
/// global would cost one on every use), which matters on paths such as every property read and every lock.
extern gca_padded_word gca_process_words[5];

/// The installed schedule hook (a retained pointer), or 0 (see `SchedulePoints`).
static inline gca_word *gca_schedule_hook_word(void) { return &gca_process_words[0].word; }
/// How many key name probes run anywhere (see `KeyNameProbe`).
static inline gca_word *gca_active_probes_word(void) { return &gca_process_words[1].word; }
/// How many silenced spans are open on all threads (see `ManualChanges`).
static inline gca_word *gca_open_silences_word(void) { return &gca_process_words[2].word; }
/// How many changes begun in their object's deinit are pending on all threads (see `ManualChanges`).
static inline gca_word *gca_open_deinit_changes_word(void) { return &gca_process_words[3].word; }
/// The installed held-change tracer (a retained pointer), or 0 (see `HeldChangeTracing`).
static inline gca_word *gca_held_change_tracer_word(void) { return &gca_process_words[4].word; }

/// How many classes `KVOObjectClasses` remembers: a power of two.
#define GCA_KVO_CLASS_COUNT 16

/// The classes `KVOObjectClasses` remembers: each word the metadata address of a `KVOObject` class, or 0.
extern gca_word gca_kvo_classes[GCA_KVO_CLASS_COUNT];

/// The word where the class whose metadata address is `metadata` is remembered if it is a `KVOObject` class.
static inline gca_word *gca_kvo_class_word(uint64_t metadata) {
    return &gca_kvo_classes[(metadata >> 3) & (GCA_KVO_CLASS_COUNT - 1)];
}

/// Whether the native Swift object at `object` is running its deinit: the Swift runtime's own answer
/// (`swift_isDeallocating`, one atomic load of the object's reference count). `object` must be a native Swift object
/// the caller keeps alive (or whose deinit is running); never an Objective-C one.
static inline bool gca_swift_object_is_deinitializing(const void *object) {
    // Exported by the Swift runtime (libswiftCore) on every platform, with the C calling convention: `HeapObject.h`
    // declares `bool swift_isDeallocating(HeapObject *object)`. Called directly, with no call of GuardCore's own
    // around it.
    extern bool swift_isDeallocating(void *object);
    return swift_isDeallocating((void *)object);
}

/// Loads the `weak` reference stored at `reference` (a Swift `weak` field's storage): the object, retained (+1), or
/// NULL once it is gone. The Swift runtime's own load (`swift_weakLoadStrong`; on Apple platforms
/// `swift_unknownObjectWeakLoadStrong`, which also reads storage that holds an Objective-C object), exported on every
/// platform with the C calling convention; never a read of the storage as a strong reference.
static inline void *gca_weak_load_strong(void *reference) {
#if defined(__APPLE__)
    extern void *swift_unknownObjectWeakLoadStrong(void *reference);
    return swift_unknownObjectWeakLoadStrong(reference);
#else
    extern void *swift_weakLoadStrong(void *reference);
    return swift_weakLoadStrong(reference);
#endif
}

/// Stores `object` (or NULL) into the `weak` reference at `reference`, which holds a weak reference already: the
/// Swift runtime's assignment (`swift_weakAssign` / `swift_unknownObjectWeakAssign`). `object` is not consumed.
static inline void gca_weak_assign(void *reference, void *object) {
#if defined(__APPLE__)
    extern void *swift_unknownObjectWeakAssign(void *reference, void *object);
    swift_unknownObjectWeakAssign(reference, object);
#else
    extern void *swift_weakAssign(void *reference, void *object);
    swift_weakAssign(reference, object);
#endif
}

/// Loads the `unowned` (safe) reference stored at `reference`: the object, retained (+1), or NULL for an optional
/// one that is nil. Like reading the property in Swift, it stops the process if the object has been deinitialized
/// (`swift_unownedRetainStrong`; on Apple platforms `swift_unknownObjectUnownedLoadStrong`).
static inline void *gca_unowned_load_strong(void *reference) {
    if (*(void **)reference == NULL) return NULL;
#if defined(__APPLE__)
    extern void *swift_unknownObjectUnownedLoadStrong(void *reference);
    return swift_unknownObjectUnownedLoadStrong(reference);
#else
    extern void swift_unownedRetainStrong(void *object);
    void *object = *(void **)reference;
    swift_unownedRetainStrong(object);
    return object;
#endif
}

/// Stores `object` (or NULL) into the `unowned` (safe) reference at `reference`, which holds one already: takes an
/// unowned reference to the new object, then drops the old one. `object` is not consumed.
static inline void gca_unowned_assign(void *reference, void *object) {
#if defined(__APPLE__)
    extern void *swift_unknownObjectUnownedAssign(void *reference, void *object);
    swift_unknownObjectUnownedAssign(reference, object);
#else
    extern void *swift_unownedRetain(void *object);
    extern void swift_unownedRelease(void *object);
    void *old = *(void **)reference;
    if (object != NULL) swift_unownedRetain(object);
    *(void **)reference = object;
    if (old != NULL) swift_unownedRelease(old);
#endif
}

#if !defined(__APPLE__)
/// The type context descriptor of the type whose metadata is at `metadata`: the Swift runtime's
/// `swift_getTypeContextDescriptor`, linked directly where the runtime ships with the program (on Apple platforms
/// it is looked up at run time, as the system's runtime may predate it).
static inline const void *gca_type_context_descriptor(const void *metadata) {
    extern const void *swift_getTypeContextDescriptor(const void *metadata);
    return swift_getTypeContextDescriptor(metadata);
}
#endif

/// A lock in one 32-bit word: 0 unlocked, 1 locked, 2 locked with threads waiting (or about to). Zero-filled memory
/// is an unlocked lock; it must not move while used. Taking it uncontended is one compare-and-exchange and
/// releasing it one exchange, inlined into the caller; a thread that finds it taken spins briefly, then sleeps in
/// the kernel (a futex on Linux) until a release wakes it. Not recursive: a thread that takes it again while holding
/// it waits forever (GuardCore's debug builds use error-checking pthread mutexes instead, which stop with a message).
typedef struct {
    _Atomic(uint32_t) state;
} gca_lock;

/// The contended paths of `gca_lock_acquire` and `gca_lock_release` (GuardCoreAtomics.c). Linux only.
void gca_lock_acquire_contended(gca_lock *lock);
void gca_lock_wake_one(gca_lock *lock);

/// Blocks until the caller holds `lock`; acquire ordering.
static inline void gca_lock_acquire(gca_lock *lock) {
    uint32_t expected = 0;
    if (__builtin_expect(atomic_compare_exchange_strong_explicit(
                             &lock->state, &expected, 1, memory_order_acquire, memory_order_relaxed),
            1)) {
        return;
    }
    gca_lock_acquire_contended(lock);
}

/// Releases `lock`, which the caller holds, and wakes one waiting thread if any; release ordering. Returns whether
/// it woke one (whether the lock said threads were waiting).
static inline bool gca_lock_release(gca_lock *lock) {
    if (__builtin_expect(atomic_exchange_explicit(&lock->state, 0, memory_order_release) == 2, 0)) {
        gca_lock_wake_one(lock);
        return true;
    }
    return false;
}

/// Marks `lock`, if held, as held with threads waiting, as a thread does before it sleeps on it: its release then
/// wakes a waiter. For a cooperative scheduler that stands in for a sleeping waiter. Returns whether `lock` was held.
static inline bool gca_lock_mark_waiting(gca_lock *lock) {
    uint32_t expected = 1;
    return atomic_compare_exchange_strong_explicit(
               &lock->state, &expected, 2, memory_order_relaxed, memory_order_relaxed)
        || expected == 2;
}

/// Whether `lock` is held by some thread (a snapshot, for checks that it is not).
static inline bool gca_lock_is_held(gca_lock *lock) {
    return atomic_load_explicit(&lock->state, memory_order_relaxed) != 0;
}

#endif
