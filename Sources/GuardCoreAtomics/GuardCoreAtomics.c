// Every atomic operation is an inline function in include/GuardCoreAtomics.h; this file defines the process-wide
// words, the remembered KVOObject classes and the contended paths of gca_lock, and checks the header compiles as C.
#include "GuardCoreAtomics.h"

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

_Static_assert(sizeof(gca_word) == 8, "gca_word must be one 64-bit word");
_Static_assert(sizeof(gca_padded_word) == 64, "gca_padded_word must fill one cache line");
_Static_assert(sizeof(gca_lock) == 4, "gca_lock must be one 32-bit word (a futex)");

gca_padded_word gca_process_words[5];

gca_word gca_kvo_classes[GCA_KVO_CLASS_COUNT];

#if defined(__linux__)

/// How many times a thread that finds the lock taken looks again before it sleeps: GuardCore holds its locks for well
/// under a microsecond, so a short spin often wins without a system call, and when the holder was preempted (many
/// threads on few cores) the spinner soon sleeps instead of burning its time slice. 16 kept 64 queues on one object
/// at least as fast as glibc's mutex, which does not spin (`guard-stress bench`, throughput.shared-object); 64 did not.
#define GCA_LOCK_SPINS 16

void gca_lock_acquire_contended(gca_lock *lock) {
    for (int spin = 0; spin < GCA_LOCK_SPINS; spin++) {
        uint32_t expected = 0;
        if (atomic_load_explicit(&lock->state, memory_order_relaxed) == 0
            && atomic_compare_exchange_weak_explicit(
                &lock->state, &expected, 1, memory_order_acquire, memory_order_relaxed)) {
            return;
        }
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#endif
    }
    // Marked 2 ("waiters") from here on: whoever releases it next wakes a sleeper. A thread that takes it this way
    // leaves it at 2, which at worst costs one needless wake-up later.
    while (atomic_exchange_explicit(&lock->state, 2, memory_order_acquire) != 0) {
        syscall(SYS_futex, &lock->state, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
    }
}

void gca_lock_wake_one(gca_lock *lock) {
    syscall(SYS_futex, &lock->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

#endif
