#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One instance of `Value` per thread, created on first use and released when the thread exits.
///
/// Backed by a `pthread_key_t`, so a lookup costs one `pthread_getspecific` call.
package final class ThreadLocal<Value: AnyObject>: @unchecked Sendable {
    /// A constant: a `var` of a class would cost a run-time exclusivity check on every lookup.
    private let key: pthread_key_t
    private let make: @Sendable () -> Value

    /// Creates the slot; `make` builds a thread's value the first time that thread asks for it.
    package init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
            #else
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
            #endif
        }
        precondition(status == 0, "pthread_key_create failed with \(status)")
        self.key = key
    }

    /// This thread's value, created on first access.
    package var value: Value {
        if let existing = valueIfCreated { return existing }
        let created = make()
        let status = pthread_setspecific(key, Unmanaged.passRetained(created).toOpaque())
        precondition(status == 0, "pthread_setspecific failed with \(status)")
        return created
    }

    /// This thread's value if it has one already; never allocates.
    package var valueIfCreated: Value? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        // Only `value` stores into this key, and always a `Value`.
        return Unmanaged<Value>.fromOpaque(pointer).takeUnretainedValue()
    }
}
