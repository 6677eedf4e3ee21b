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

/// The library's own threads for async sends: blocking transfers never occupy the cooperative
/// pool. Threads are started on demand, up to `maxThreads` at once (further sends wait in a
/// FIFO queue, and their time-out starts when they run); a thread idle for `idleTimeout` seconds
/// ends.
final class TransferThreads: @unchecked Sendable {
    static let shared = TransferThreads(maxThreads: 64, idleTimeout: 30)

    let maxThreads: Int
    let idleTimeout: TimeInterval
    // Everything below is guarded by `condition`'s lock.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var threads = 0
    private var idle = 0

    init(maxThreads: Int, idleTimeout: TimeInterval) {
        self.maxThreads = max(1, maxThreads)
        self.idleTimeout = idleTimeout
    }

    /// Runs `job` on one of the transfer threads.
    func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        // A new thread when the queued jobs outnumber the idle threads that will take them.
        let startThread = jobs.count - head > idle && threads < maxThreads
        if startThread { threads += 1 } else { condition.signal() }
        condition.unlock()
        if startThread {
            let thread = Thread { [self] in work() }
            thread.name = "HTTPTransport.async"
            thread.start()
        }
    }

    private func work() {
        condition.lock()
        while true {
            if head < jobs.count {
                let job = jobs[head]
                head += 1
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: jobs.count <= 1024)
                    head = 0
                }
                condition.unlock()
                job()
                condition.lock()
                continue
            }
            idle += 1
            let signalled = condition.wait(until: Date(timeIntervalSinceNow: idleTimeout))
            idle -= 1
            if !signalled, head >= jobs.count {
                threads -= 1
                break
            }
        }
        condition.unlock()
    }
}
