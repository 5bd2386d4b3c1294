// Every operation is an inline function in include/GuardCoreAtomics.h; this file defines the process-wide words and
// the remembered KVOObject classes, and checks the header compiles as C.
#include "GuardCoreAtomics.h"

_Static_assert(sizeof(gca_word) == 8, "gca_word must be one 64-bit word");
_Static_assert(sizeof(gca_padded_word) == 64, "gca_padded_word must fill one cache line");

gca_padded_word gca_process_words[4];

gca_word gca_kvo_classes[GCA_KVO_CLASS_COUNT];
