#include "ProcessMemory.h"

#if defined(__APPLE__)
#include <mach/mach.h>
#include <malloc/malloc.h>
#elif defined(__linux__)
#include <malloc.h>
#include <stdio.h>
#include <unistd.h>
#endif

uint64_t process_memory_heap_bytes_in_use(void) {
#if defined(__APPLE__)
    malloc_statistics_t statistics;
    malloc_zone_statistics(NULL, &statistics);
    return (uint64_t)statistics.size_in_use;
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return (uint64_t)info.uordblks + (uint64_t)info.hblkhd;
#elif defined(__GLIBC__)
    struct mallinfo info = mallinfo();
    return (uint64_t)(unsigned int)info.uordblks + (uint64_t)(unsigned int)info.hblkhd;
#else
    return 0;
#endif
}

uint64_t process_memory_resident_bytes(void) {
#if defined(__APPLE__)
    mach_task_basic_info_data_t info;
    mach_msg_type_number_t count = MACH_TASK_BASIC_INFO_COUNT;
    if (task_info(mach_task_self(), MACH_TASK_BASIC_INFO, (task_info_t)&info, &count) != KERN_SUCCESS) {
        return 0;
    }
    return (uint64_t)info.resident_size;
#elif defined(__linux__)
    FILE *file = fopen("/proc/self/statm", "r");
    if (file == NULL) {
        return 0;
    }
    unsigned long long size = 0, resident = 0;
    int fields = fscanf(file, "%llu %llu", &size, &resident);
    fclose(file);
    if (fields != 2) {
        return 0;
    }
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? resident * (uint64_t)page : 0;
#else
    return 0;
#endif
}
