import Foundation

/// One result handed from a WebSocket's loop thread to the one caller waiting for it, whether
/// that caller blocks (a worker thread) or awaits (a task). The first value delivered wins; a
/// later one is refused, so the loop can give it to someone else (a message whose receiver was
/// cancelled goes back to the socket's inbox).
final class WebSocketHandoff<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var value: Value?
    private var continuation: CheckedContinuation<Value, Never>?
    private var semaphore: DispatchSemaphore?

    /// Hands `value` over; false when the waiter had one already.
    @discardableResult
    func deliver(_ value: Value) -> Bool {
        lock.lock()
        guard self.value == nil else {
            lock.unlock()
            return false
        }
        self.value = value
        let waiting = continuation
        continuation = nil
        let blocked = semaphore
        lock.unlock()
        waiting?.resume(returning: value)
        blocked?.signal()
        return true
    }

    /// Whether a value was delivered (the waiter's own, or `cancelled`).
    var isDelivered: Bool { lock.withLock { value != nil } }

    /// Blocks the calling thread until a value was delivered.
    func wait() -> Value {
        lock.lock()
        if let value {
            lock.unlock()
            return value
        }
        let semaphore = DispatchSemaphore(value: 0)
        self.semaphore = semaphore
        lock.unlock()
        semaphore.wait()
        guard let value = lock.withLock({ value }) else { preconditionFailure("A WebSocket hand-off signalled without a value.") }
        return value
    }

    /// Suspends the task until a value was delivered; `cancelled` is delivered when the task is
    /// cancelled first.
    func value(cancelled: @autoclosure @Sendable () -> Value) async -> Value {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                lock.lock()
                if let value {
                    lock.unlock()
                    continuation.resume(returning: value)
                } else {
                    self.continuation = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            deliver(cancelled())
        }
    }
}
