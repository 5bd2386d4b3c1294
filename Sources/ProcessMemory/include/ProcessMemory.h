// ProcessMemory: how much memory this process uses, for guard-stress bench's memory figures.
//
// Swift cannot reach these directly: glibc's mallinfo2() lives in <malloc.h>, which the Glibc module does not
// export, and Darwin's task_info needs Mach types that are clumsy from Swift. Used by the bench only, never by the
// library targets.

#ifndef PROCESS_MEMORY_H
#define PROCESS_MEMORY_H

#include <stdint.h>

/// Bytes of heap currently allocated by malloc and not yet freed (glibc: mallinfo2's uordblks + hblkhd; Darwin:
/// the default zones' size_in_use). 0 where the platform offers no such count.
uint64_t process_memory_heap_bytes_in_use(void);

/// Resident set size in bytes (Linux: /proc/self/statm; Darwin: task_info's resident_size). 0 if unknown.
uint64_t process_memory_resident_bytes(void);

#endif
