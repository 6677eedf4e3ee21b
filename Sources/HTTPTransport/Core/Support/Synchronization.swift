import Foundation
import Synchronization

/// A lock-protected value. A pthread mutex (through `NSLock`) rather than `Synchronization.Mutex`:
/// on Linux the latter locks with a bare futex that ThreadSanitizer cannot see, so every access
/// it protects would be reported as a race.
final class Locked<Value: Sendable>: @unchecked Sendable {
    /// Only touched under `lock`, so the runtime's exclusivity bookkeeping is left out.
    @exclusivity(unchecked) private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// A flag set once, read from any thread.
final class AtomicFlag: Sendable {
    private let value = Atomic<Bool>(false)

    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
