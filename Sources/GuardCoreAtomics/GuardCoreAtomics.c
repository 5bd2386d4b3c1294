// Every operation is an inline function in include/GuardCoreAtomics.h; this file defines the process-wide words and
// the Swift runtime query, and checks the header compiles as C.
#include "GuardCoreAtomics.h"

_Static_assert(sizeof(gca_word) == 8, "gca_word must be one 64-bit word");
_Static_assert(sizeof(gca_padded_word) == 64, "gca_padded_word must fill one cache line");

gca_padded_word gca_process_words[4];

// Exported by the Swift runtime (libswiftCore) on every platform, with the C calling convention: `HeapObject.h`
// declares `bool swift_isDeallocating(HeapObject *object)`.
extern bool swift_isDeallocating(void *object);

bool gca_swift_object_is_deinitializing(const void *object) {
    return swift_isDeallocating((void *)object);
}
