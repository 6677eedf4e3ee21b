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
        await value(onCancel: { deliver(cancelled()) })
    }

    /// Suspends the task until a value was delivered; `onCancel` runs when the task is cancelled
    /// first (it decides what, if anything, to deliver).
    func value(onCancel: @Sendable () -> Void) async -> Value {
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
            onCancel()
        }
    }
}

/// One queued message on its way out: its sender's hand-off and whether it may still be
/// withdrawn. A sender whose task is cancelled withdraws it while no byte of its frame went to
/// libcurl (it is then never sent); once the loop began the frame it goes out whole, and the
/// cancelled sender hears that it was (partly) sent.
final class WebSocketSend: @unchecked Sendable {
    enum State {
        /// Waiting in the queue.
        case queued
        /// The loop handed (part of) its frame to libcurl.
        case started
        /// Its cancelled sender took it back.
        case withdrawn
    }

    let done = WebSocketHandoff<WebSocketOutcome>()
    private let lock = NSLock()
    // Guarded by `lock`.
    private var state = State.queued

    /// The loop is about to hand its frame to libcurl: false when it was withdrawn (skip it).
    func begin() -> Bool {
        lock.withLock {
            guard state != .withdrawn else { return false }
            state = .started
            return true
        }
    }

    /// Whether its sender took it back.
    var isWithdrawn: Bool { lock.withLock { state == .withdrawn } }

    /// The sender's task was cancelled: a queued message is withdrawn and its sender hears
    /// `notSent` (true is returned); a started one stays, and its sender hears `partlySent`.
    /// Nothing changes when the sender was answered already.
    func withdraw(notSent: HTTPTransportError, partlySent: HTTPTransportError) -> Bool {
        lock.withLock {
            switch state {
            case .queued:
                guard done.deliver(.failure(notSent)) else { return false }
                state = .withdrawn
                return true
            case .started:
                done.deliver(.failure(partlySent))
                return false
            case .withdrawn:
                return false
            }
        }
    }
}
