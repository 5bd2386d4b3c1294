// Every operation is an inline function in include/GuardCoreAtomics.h; this file gives the target a translation
// unit, as SwiftPM requires, and checks the header compiles as C.
#include "GuardCoreAtomics.h"

_Static_assert(sizeof(gca_word) == 8, "gca_word must be one 64-bit word");
