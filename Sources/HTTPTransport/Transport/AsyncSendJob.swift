import Foundation

/// One awaited send: resumes its continuation exactly once, whether the transfer finished, or
/// the task was cancelled before the transfer started. The result itself crosses threads under
/// the job's lock, not through the continuation: the continuation only wakes the task, which then
/// takes the result (`result`). ThreadSanitizer sees a pthread mutex (`NSLock`); it does not see
/// the concurrency runtime's hand-over from a thread of ours to the task's executor, and on Linux
/// it cannot see `Synchronization.Mutex`'s futex either.
final class AsyncSendJob: @unchecked Sendable {
    private enum State {
        case waiting(cancelled: Bool)
        case queued(CheckedContinuation<Void, Never>)
        case running(CheckedContinuation<Void, Never>)
        case done(HTTPTransport.Result)
    }

    private let lock = NSLock()
    private var state = State.waiting(cancelled: false)  // guarded by `lock`
    private let cancelledError: HTTPTransportError

    init(cancelledError: HTTPTransportError) { self.cancelledError = cancelledError }

    /// Takes the continuation; `false` (and resumed, answered `.cancelled`) when cancelled already.
    func install(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        let cancelled = lock.withLock { () -> Bool in
            guard case .waiting(let cancelled) = state else { return true }
            state = cancelled ? .done(.failure(error: cancelledError)) : .queued(continuation)
            return cancelled
        }
        if cancelled { continuation.resume() }
        return !cancelled
    }

    /// Called on the transfer thread: `true` when the transfer should run.
    func start() -> Bool {
        lock.withLock {
            guard case .queued(let continuation) = state else { return false }
            state = .running(continuation)
            return true
        }
    }

    func finish(_ result: HTTPTransport.Result) {
        let continuation = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard case .running(let continuation) = state else { return nil }
            state = .done(result)
            return continuation
        }
        continuation?.resume()
    }

    /// The task was cancelled: a send not started yet is answered now (a running one is stopped
    /// through its `CancellationHandle` and finishes by itself).
    func cancel() {
        let continuation = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            switch state {
            case .waiting:
                state = .waiting(cancelled: true)
                return nil
            case .queued(let continuation):
                state = .done(.failure(error: cancelledError))
                return continuation
            case .running, .done:
                return nil
            }
        }
        continuation?.resume()
    }

    /// The answer, read by the task once its continuation was resumed.
    var result: HTTPTransport.Result {
        lock.withLock {
            guard case .done(let result) = state else { return .failure(error: cancelledError) }
            return result
        }
    }
}
