#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one mutex of the code base, with a condition for the one place that
/// waits (the delivery worker). Each instance owns its pthread objects and
/// destroys them in `deinit`, when nothing can hold them.
///
/// `@unchecked Sendable`: the pthread mutex is the synchronisation itself;
/// the pointers are set once in `init` and never change.
public final class Lock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Inside `withLock` only: sleeps until `signal`, or until `seconds`
    /// have passed when given, releasing the lock meanwhile.
    public func wait(seconds: Int? = nil) {
        guard let seconds else {
            pthread_cond_wait(condition, mutex)
            return
        }
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_sec += seconds
        pthread_cond_timedwait(condition, mutex, &deadline)
    }

    /// Wakes one waiter (call inside `withLock`).
    public func signal() { pthread_cond_signal(condition) }
}

/// A value only ever touched under its own `Lock`.
///
/// `@unchecked Sendable`: every access to `value` goes through `withLock`.
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = Lock()

    public init(_ value: Value) { self.value = value }

    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try lock.withLock { try body(&value) }
    }
}
