import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A short, human-readable description of the calling thread for diagnostics.
package enum CurrentThread {
    /// `main`, or the thread's name and number (`thread 4711 "worker-3"`), or just its number.
    package static var description: String {
        if Thread.isMainThread { return "main" }
        if let name = Thread.current.name, !name.isEmpty {
            return "thread \(identifier) \"\(name)\""
        }
        return "thread \(identifier)"
    }

    /// A number that identifies the calling thread for as long as it lives.
    package static var identifier: UInt64 {
        #if canImport(Darwin)
        var id: UInt64 = 0
        pthread_threadid_np(nil, &id)
        return id
        #else
        return UInt64(pthread_self())
        #endif
    }
}
