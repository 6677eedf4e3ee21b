import Foundation
import Synchronization

/// A lock-protected value. A pthread mutex rather than `Synchronization.Mutex`: on Linux the
/// latter locks with a bare futex that ThreadSanitizer cannot see, so every access it protects
/// would be reported as a race. (The mutex itself, not `NSLock`'s wrapper around one: the pools
/// and caches a send goes through take it several times per send.)
final class Locked<Value: Sendable>: @unchecked Sendable {
    /// Only touched under `mutex`, so the runtime's exclusivity bookkeeping is left out.
    @exclusivity(unchecked) private var value: Value
    private let mutex = PthreadMutex()

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        mutex.lock()
        defer { mutex.unlock() }
        return try body(&value)
    }
}

/// A pthread mutex of its owner's (set up and torn down with it), for an object that guards its
/// own state without a lock object of its own beside it (`Locked`, `CancellationHandle`).
struct PthreadMutex: ~Copyable, @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
}

/// A flag set once, read from any thread.
final class AtomicFlag: Sendable {
    private let value = Atomic<Bool>(false)

    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
