import Foundation

extension Session {
    /// Runs `body` on one of the session's transfer threads and returns its value, the task
    /// suspended meanwhile. The value crosses under a lock the task takes (`ThreadResult`).
    func onTransferThread<Value: Sendable>(for endpoint: String, _ body: @escaping @Sendable () -> Value) async -> Value {
        let box = ThreadResult<Value>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            runOnTransferThread(for: endpoint) {
                box.set(body())
                continuation.resume()
            }
        }
        guard let value = box.value else { preconditionFailure("a transfer thread ended without its value") }
        return value
    }
}

/// A value handed from a transfer thread to a task, under a lock both take.
final class ThreadResult<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    func set(_ value: Value) { lock.withLock { stored = value } }
    var value: Value? { lock.withLock { stored } }
}
