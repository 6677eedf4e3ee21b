import Foundation

/// The meeting point of an `HTTPResponseStream`'s transfer (on a transfer thread) and its
/// consumer (a task): the head, then the body through a bounded `StreamBuffer`.
///
/// As in `AsyncSendJob`, values cross threads under the lock, never through a continuation:
/// a continuation only wakes the task, which then reads the state (ThreadSanitizer sees the
/// pthread mutex, not the concurrency runtime's hand-over).
final class StreamChannel: StreamingConsumer, @unchecked Sendable {
    /// Stops the transfer (the engine's poll wakes at once).
    let cancellation = CancellationHandle()
    private let url: String
    private let lock = NSLock()
    // Everything below is guarded by `lock`.
    private var buffer: StreamBuffer
    private var head: RawResponse?
    private var headFailure: HTTPTransportError?
    private var announced = false
    private var headWaiter: CheckedContinuation<Void, Never>?
    private var reader: CheckedContinuation<Void, Never>?
    private var waker: (@Sendable () -> Void)?
    private var transferEnded = false
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    private var iterated = false
    private var pauseWaiters: [CheckedContinuation<Void, Never>] = []
    private var taken: ContinuousClock.Instant?

    init(url: String, limit: Int = StreamBuffer.defaultLimit) {
        self.url = url
        buffer = StreamBuffer(limit: limit)
    }

    private var cancelledError: HTTPTransportError {
        HTTPTransportError(code: .cancelled, message: "The stream was cancelled.", url: url)
    }

    // MARK: Transfer side (StreamingConsumer)

    func headArrived(_ head: RawResponse) -> HTTPTransportError? {
        let (waiter, error) = lock.withLock { () -> (CheckedContinuation<Void, Never>?, HTTPTransportError?) in
            if case .failed(let error)? = buffer.end { return (nil, error) }
            guard !announced else { return (nil, nil) }
            announced = true
            // (Without its streaming body, which refers to this channel: no reference cycle.)
            var head = head
            head.request.streaming = nil
            self.head = head
            defer { headWaiter = nil }
            return (headWaiter, nil)
        }
        waiter?.resume()
        return error
    }

    func receive(_ chunk: Data, evenIfFull: Bool) -> StreamingAnswer {
        let (answer, waiter) = lock.withLock { () -> (StreamingAnswer, CheckedContinuation<Void, Never>?) in
            let answer = buffer.offer(chunk, evenIfFull: evenIfFull)
            if answer == .pause, !pauseWaiters.isEmpty {
                pauseWaiters.forEach { $0.resume() }
                pauseWaiters = []
            }
            // (A few pieces wake the reader at once; fewer wait for the round's end, `handedOver`.)
            guard answer == .more, evenIfFull || buffer.wakesConsumer else { return (answer, nil) }
            defer { reader = nil }
            return (answer, reader)
        }
        waiter?.resume()
        return answer
    }

    func handedOver() {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard buffer.hasChunk else { return nil }
            defer { reader = nil }
            return reader
        }
        waiter?.resume()
    }

    var wantsMore: Bool { lock.withLock { buffer.wantsMore } }

    func resume() -> Bool { lock.withLock { buffer.resume() } }

    var lastTaken: ContinuousClock.Instant? { lock.withLock { taken } }

    func setWaker(_ waker: (@Sendable () -> Void)?) { lock.withLock { self.waker = waker } }

    var isCommitted: Bool { lock.withLock { announced } }

    var concludedHead: Bool { lock.withLock { announced } }

    /// The send ended (on the transfer thread): before the head, its failure is `stream`'s;
    /// after it, the body ends with it.
    func finish(_ result: HTTPTransport.Result) {
        let waiters = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            transferEnded = true
            if !announced {
                announced = true
                headFailure = result.error ?? HTTPTransportError(
                    code: .badResponse, message: "The exchange ended without a response head.", url: url)
            }
            buffer.finish(result.error.map(StreamBuffer.End.failed) ?? .finished)
            var waiters = endWaiters
            endWaiters = []
            if let headWaiter { waiters.append(headWaiter) }
            if let reader { waiters.append(reader) }
            headWaiter = nil
            reader = nil
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Consumer side

    /// Stops the transfer and ends the stream with `.cancelled` (what waits is dropped).
    func cancel() {
        let waiters = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            if buffer.end == nil { buffer.cancel(cancelledError) }
            if head == nil, headFailure == nil { headFailure = cancelledError }
            let waiters = [headWaiter, reader].compactMap { $0 }
            headWaiter = nil
            reader = nil
            return waiters
        }
        cancellation.cancel()
        for waiter in waiters { waiter.resume() }
    }

    /// The response head, once it arrived (cancelling the task cancels the stream).
    func awaitHead() async throws(HTTPTransportError) -> RawResponse {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = lock.withLock { () -> Bool in
                    guard head == nil, headFailure == nil else { return true }
                    headWaiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            cancel()
        }
        let (arrived, failure) = lock.withLock { (head, headFailure) }
        if let arrived { return arrived }
        throw failure ?? cancelledError
    }

    /// The next chunk of the body; nil at its end (cancelling the task cancels the stream). It runs
    /// on the caller's executor (`isolation`), so a reader on an actor is not hopped off it and
    /// back for every chunk: the transfer's wake-up resumes it there directly.
    func next(isolation: isolated (any Actor)? = #isolation) async throws(HTTPTransportError) -> Data? {
        while true {
            let next = lock.withLock {
                let next = buffer.take()
                if case .chunk = next { taken = .now }
                return next
            }
            switch next {
            case .chunk(let data, let resumes):
                // Called under the lock: the transfer thread clears the waker under it before its
                // multi handle can go, so the wake-up never reaches a freed handle.
                if resumes { lock.withLock { waker?() } }
                return data
            case .end(.finished): return nil
            case .end(.failed(let error)): throw error
            case .empty: await waitForChunk(isolation: isolation)
            }
        }
    }

    /// (On the caller's executor: both closures name `isolation`, so they run on it, and so does
    /// the continuation's resumption.)
    private func waitForChunk(isolation: isolated (any Actor)?) async {
        await withTaskCancellationHandler(operation: {
            await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Never>) in
                let ready = lock.withLock { () -> Bool in
                    guard !buffer.hasChunk, buffer.end == nil else { return true }
                    reader = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }, onCancel: {
            cancel()
        }, isolation: isolation)
    }

    /// `false` after the first call: a stream's body is read once.
    func beginIteration() -> Bool {
        lock.withLock {
            defer { iterated = true }
            return !iterated
        }
    }

    /// Returns once the transfer ended and its handle was released (tests count descriptors).
    func awaitTransferEnd() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = lock.withLock { () -> Bool in
                if !transferEnded { endWaiters.append(continuation) }
                return transferEnded
            }
            if ended { continuation.resume() }
        }
    }

    /// Bytes waiting in the buffer.
    var bufferedBytes: Int { lock.withLock { buffer.bufferedBytes } }

    /// Whether the full buffer paused the transfer and it has not gone on since (tests).
    var isPaused: Bool { lock.withLock { buffer.isPaused } }

    /// Returns once the full buffer paused the transfer (tests of back-pressure).
    func awaitPause() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let paused = lock.withLock { () -> Bool in
                if !buffer.isPaused { pauseWaiters.append(continuation) }
                return buffer.isPaused
            }
            if paused { continuation.resume() }
        }
    }
}
