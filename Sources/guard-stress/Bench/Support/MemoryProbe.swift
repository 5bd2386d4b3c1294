import ProcessMemory

/// The process's memory, as the memory figures read it.
enum MemoryProbe {
    /// Bytes the allocator has handed out and not had back (glibc `mallinfo2()`; Darwin malloc zone statistics).
    static var heapBytesInUse: Int {
        Int(clamping: process_memory_heap_bytes_in_use())
    }

    /// Resident set size in bytes (Linux `/proc/self/statm`; Darwin `task_info`).
    static var residentBytes: Int {
        Int(clamping: process_memory_resident_bytes())
    }
}
