import Foundation

/// A value shared by test threads, behind an `NSLock` (a pthread mutex ThreadSanitizer sees;
/// `Synchronization.Mutex` locks with a bare futex on Linux, which it cannot see).
final class Protected<Value>: @unchecked Sendable {
    private var stored: Value
    private let lock = NSLock()

    init(_ value: Value) { stored = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&stored)
    }

    /// The value now; setting it replaces it.
    var value: Value {
        get { withLock { $0 } }
        set { withLock { $0 = newValue } }
    }
}

/// Values recorded from several threads (interceptors, engines, callbacks), in order.
final class Recorder<Value>: @unchecked Sendable {
    private var items: [Value] = []
    private let lock = NSLock()

    func add(_ item: Value) { lock.withLock { items.append(item) } }
    var values: [Value] { lock.withLock { items } }
    var count: Int { lock.withLock { items.count } }
}
