import Foundation

/// The async bridge: `await` a send from Swift concurrency.
///
/// A send blocks a thread for the whole exchange (libcurl's easy interface), so it never runs on
/// the cooperative thread pool: it runs on the library's own transfer threads (see
/// `TransferThreads`), and the awaiting task is suspended meanwhile. Cancelling the task cancels
/// the transfer (through a `CancellationHandle`), and the call throws `.cancelled` promptly.
///
/// ```swift
/// let transport = HTTPTransport()
/// do {
///     let response = try await transport.response(for: HTTPRequest(endpoint: "http://127.0.0.1:8080/user"))
///     print(try response.getJSONDictionary() ?? [:])
/// } catch {                                      // error is an HTTPTransportError
///     print(error.httpStatusCode?.rawValue ?? 0, error.message)
/// }
/// ```
///
/// `try await transport.send(request)` (no argument label) is the same call. The synchronous
/// `send(request:) -> Result` keeps its name and meaning in every context: an `async` overload
/// with the same label would be preferred inside async code (e.g. `Task { transport.send(request: r) }`)
/// and break such callers, so the async spellings differ from it by their labels.
extension HTTPTransport {
    /// Sends a request without blocking the caller's thread: `try await transport.send(request)`.
    /// Same as `response(for:)`.
    public func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
        try await response(for: request, progress: nil)
    }

    /// Sends a data upload without blocking the caller's thread (see `send(_:)`).
    public func send(_ request: DataUploadHTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
        try await response(for: request, progress: nil)
    }

    /// Sends a file upload without blocking the caller's thread (see `send(_:)`).
    public func send(_ request: FileUploadHTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
        try await response(for: request, progress: nil)
    }

    /// Sends a request without blocking the caller's thread; returns the response or throws why
    /// there is none. Cancelling the task cancels the transfer (`.cancelled`).
    public func response(for request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
        try await response(for: request, progress: nil)
    }

    /// Sends a data upload without blocking the caller's thread (see `response(for:)`).
    public func response(for request: DataUploadHTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
        try await response(for: request, progress: nil)
    }

    /// Sends a file upload without blocking the caller's thread (see `response(for:)`).
    public func response(for request: FileUploadHTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
        try await response(for: request, progress: nil)
    }

    /// Sends any request type, with optional progress reports (called on the transfer thread;
    /// return `false` to cancel), without blocking the caller's thread. Cancelling the task
    /// cancels the transfer (`.cancelled`).
    public func response(
        for request: some HTTPRequestEnvelope,
        progress: (@Sendable (TransferProgress) -> Bool)?
    ) async throws(HTTPTransportError) -> HTTPResponse {
        try await result(for: request, progress: progress).get()
    }

    /// Like `response(for:progress:)`, but returns the `Result` as the synchronous `send` does.
    public func result(
        for request: some HTTPRequestEnvelope,
        progress: (@Sendable (TransferProgress) -> Bool)? = nil
    ) async -> Result {
        let cancellation = CancellationHandle()
        let control = TransferControl(progress: progress, cancellation: cancellation)
        let job = AsyncSendJob(cancelledError: HTTPTransportError(
            code: .cancelled, message: "The task was cancelled.", url: request.endpoint))
        // The transfer thread does not inherit the task's values: the caller's trace goes along.
        let context = TelemetryContext.current
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
                guard job.install(continuation) else { return }  // already cancelled: resumed
                TransferThreads.shared.run {
                    guard job.start() else { return }  // cancelled while queued: resumed
                    job.finish(TelemetryContext.run(in: context) { self.send(request: request, control: control) })
                }
            }
        } onCancel: {
            cancellation.cancel()  // a running transfer stops promptly and returns .cancelled
            job.cancel()           // one not started yet is answered at once
        }
    }
}

/// One awaited send: resumes its continuation exactly once, whether the transfer finished, or
/// the task was cancelled before the transfer started. (An `NSLock`, not `Synchronization.Mutex`:
/// on Linux the latter is a futex ThreadSanitizer cannot see.)
final class AsyncSendJob: @unchecked Sendable {
    private enum State {
        case waiting(cancelled: Bool)
        case queued(CheckedContinuation<HTTPTransport.Result, Never>)
        case running(CheckedContinuation<HTTPTransport.Result, Never>)
        case done
    }

    private let lock = NSLock()
    private var state = State.waiting(cancelled: false)  // guarded by `lock`
    private let cancelledError: HTTPTransportError

    init(cancelledError: HTTPTransportError) { self.cancelledError = cancelledError }

    /// Takes the continuation; `false` (and resumed with `.cancelled`) when cancelled already.
    func install(_ continuation: CheckedContinuation<HTTPTransport.Result, Never>) -> Bool {
        let cancelled = lock.withLock { () -> Bool in
            guard case .waiting(let cancelled) = state else { return true }
            state = cancelled ? .done : .queued(continuation)
            return cancelled
        }
        if cancelled { continuation.resume(returning: .failure(error: cancelledError)) }
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
        let continuation = lock.withLock { () -> CheckedContinuation<HTTPTransport.Result, Never>? in
            guard case .running(let continuation) = state else { return nil }
            state = .done
            return continuation
        }
        continuation?.resume(returning: result)
    }

    /// The task was cancelled: a send not started yet is answered now (a running one is stopped
    /// through its `CancellationHandle` and finishes by itself).
    func cancel() {
        let continuation = lock.withLock { () -> CheckedContinuation<HTTPTransport.Result, Never>? in
            switch state {
            case .waiting:
                state = .waiting(cancelled: true)
                return nil
            case .queued(let continuation):
                state = .done
                return continuation
            case .running, .done:
                return nil
            }
        }
        continuation?.resume(returning: .failure(error: cancelledError))
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

    /// The number of transfer threads alive (for tests and diagnostics).
    var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads
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
