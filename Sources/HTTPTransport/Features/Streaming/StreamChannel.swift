import Foundation

/// The meeting point of an `HTTPResponseStream`'s transfer (on a transfer thread), its send's
/// chain and its reader (tasks): the exchange's answer for the chain (`StreamExchange`: the
/// head, while the transfer goes on), then the body through a bounded `StreamBuffer`.
///
/// As in `AsyncSendJob`, values cross threads under the lock, never through a continuation:
/// a continuation only wakes the task, which then reads the state (ThreadSanitizer sees the
/// pthread mutex, not the concurrency runtime's hand-over).
final class StreamChannel: StreamingConsumer, @unchecked Sendable {
    /// Stops the stream: the transfer of its exchange under way (the engine's poll wakes at once).
    let cancellation = CancellationHandle()
    private let url: String
    private let limit: Int
    private let lock = NSLock()
    // Everything below is guarded by `lock`.
    private var buffer: StreamBuffer
    private var exchange = StreamExchange()
    private var answerWaiter: CheckedContinuation<Void, Never>?
    /// Run when the transfer of exchange `number`, whose head answered the chain, ended (the
    /// transfer gate's place).
    private var endActions: [(number: Int, run: @Sendable () -> Void)] = []
    /// The exchange whose end runs its actions now: one asked for meanwhile joins them, in
    /// order, and the end shows (the body's end, `awaitTransferEnd`) once they all ran.
    private var endRunning: Int?
    private var headHandedOver = false
    private var cancelled = false
    private var reader: CheckedContinuation<Void, Never>?
    private var waker: (@Sendable () -> Void)?
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    private var iterated = false
    private var pauseWaiters: [CheckedContinuation<Void, Never>] = []
    private var taken: ContinuousClock.Instant?

    init(url: String, limit: Int = StreamBuffer.defaultLimit) {
        self.url = url
        self.limit = limit
        buffer = StreamBuffer(limit: limit)
    }

    private var cancelledError: HTTPTransportError {
        HTTPTransportError(code: .cancelled, message: "The stream was cancelled.", url: url)
    }

    // MARK: The chain's side

    /// The engine step's exchange of `request` (`perform`, in a task of its own), answered with
    /// the streamed head while the transfer goes on, or with the whole response when the
    /// transfer ended first. An exchange before it whose transfer still runs (a retrier repeats
    /// it) is stopped, and the body starts afresh: nothing of the abandoned one reaches the reader.
    nonisolated(nonsending) func exchange(
        _ request: RawRequest, body: StreamingBody, control: TransferControl,
        perform: @escaping @Sendable (RawRequest, TransferControl) async -> RawResponse) async -> RawResponse {
        let own = CancellationHandle()
        let (number, abandoned) = lock.withLock { () -> (Int, CancellationHandle?) in
            let begun = exchange.begin(cancellation: own)
            if !cancelled { buffer = StreamBuffer(limit: limit) }
            waker = nil
            // (What waited for an abandoned exchange's end waits for this one's: its transfer's
            // end counts for nothing, and a place is given back when the stream's transfer ended.)
            for index in endActions.indices { endActions[index].number = begun.number }
            return begun
        }
        abandoned?.cancel()
        // The stream's cancellation stops this exchange's transfer.
        let token = cancellation.addWaker { own.cancel() }
        if cancellation.isCancelled { own.cancel() }
        var control = control
        control.cancellation = own
        var request = request
        var attempt = body
        attempt.consumer = StreamAttempt(channel: self, number: number)
        request.streaming = attempt
        Task { [request, control] in
            let response = await perform(request, control)
            self.cancellation.removeWaker(token)
            self.ended(response, of: number)
        }
        return await answer(to: request)
    }

    /// The current exchange's answer, once it came.
    private func answer(to request: RawRequest) async -> RawResponse {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = lock.withLock { () -> Bool in
                guard !exchange.hasAnswer else { return true }
                answerWaiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
        return lock.withLock { exchange.takeAnswer() } ?? RawResponse(request: request, error: HTTPTransportError(
            code: .badResponse, message: "The exchange ended without a response.", url: url))
    }

    /// The chain answered with the stream's head, for its caller: a body that came whole (or
    /// all before its head was announced) is complete; a streamed one ends with its transfer.
    func handOver() {
        lock.withLock {
            headHandedOver = true
            // (A transfer whose end still runs its actions finishes the body itself, with its outcome.)
            if !exchange.transferRuns, endRunning == nil { buffer.finish(.finished) }
        }
    }

    /// Runs `action` once the transfer whose head answered the chain ended (`true`); `false`
    /// when no transfer goes on past the answer (it may run now).
    func afterTransfer(_ action: @escaping @Sendable () -> Void) -> Bool {
        lock.withLock {
            // (While the end runs the earlier actions, a later one joins them, in order.)
            guard exchange.phase == .streaming || endRunning == exchange.number else { return false }
            endActions.append((exchange.number, action))
            return true
        }
    }

    // MARK: The transfer's side (StreamingConsumer, and `StreamAttempt` for one exchange)

    /// The head, told by the hop after the exchange (`StreamingBody.finish`): it is the chain's
    /// answer already. (A body that failed after its head is the reader's error, not the head's.)
    func headArrived(_ head: RawResponse) -> HTTPTransportError? {
        lock.withLock { cancelled ? cancelledError : nil }
    }

    /// The streamed head of exchange `number`: the chain's answer. An error stops the transfer
    /// (the stream was cancelled, or the exchange abandoned).
    func headArrived(_ head: RawResponse, of number: Int) -> HTTPTransportError? {
        let (waiter, error) = lock.withLock { () -> (CheckedContinuation<Void, Never>?, HTTPTransportError?) in
            if cancelled { return (nil, cancelledError) }
            guard exchange.headArrived(head, of: number) else { return (nil, abandonedError) }
            defer { answerWaiter = nil }
            return (answerWaiter, nil)
        }
        waiter?.resume()
        return error
    }

    private var abandonedError: HTTPTransportError {
        HTTPTransportError(code: .cancelled, message: "The exchange was repeated; its transfer was abandoned.", url: url)
    }

    /// The transfer of exchange `number` ended: its response answers the chain (no streamed
    /// head came), or the body ends with it, once the steps' end actions ran.
    private func ended(_ response: RawResponse, of number: Int) {
        let end = lock.withLock { () -> StreamExchange.End in
            let end = exchange.ended(response, of: number)
            if end == .bodyEnded { endRunning = number }
            return end
        }
        guard end != .stale else { return }
        // The actions in the order the steps asked (the gate's place), with those asked for
        // meanwhile; then the end shows.
        while true {
            switch lock.withLock({ nextEndStep(of: number, end: end, response: response) }) {
            case .run(let actions):
                for action in actions { action() }
            case .shown(let waiters):
                for waiter in waiters { waiter.resume() }
                return
            }
        }
    }

    private enum EndStep {
        case run([@Sendable () -> Void])
        case shown([CheckedContinuation<Void, Never>])
    }

    /// (Under `lock`.) The actions of exchange `number` still to run; when none is left, its end
    /// shows: the body's end and the chain's answer (unless a later exchange began), and whoever
    /// waits for the transfer's end goes on.
    private func nextEndStep(of number: Int, end: StreamExchange.End, response: RawResponse) -> EndStep {
        let due = endActions.filter { $0.number == number }
        if !due.isEmpty {
            endActions.removeAll { $0.number == number }
            return .run(due.map(\.run))
        }
        if endRunning == number { endRunning = nil }
        var waiters = endWaiters
        endWaiters = []
        if number == exchange.number {
            if end == .bodyEnded { buffer.finish(response.error.map(StreamBuffer.End.failed) ?? .finished) }
            for waiter in [answerWaiter, reader] { if let waiter { waiters.append(waiter) } }
            answerWaiter = nil
            reader = nil
        }
        return .shown(waiters)
    }

    func receive(_ chunk: Data, evenIfFull: Bool) -> StreamingAnswer { receive(chunk, evenIfFull: evenIfFull, of: nil) }

    /// A chunk of exchange `number` (nil: whichever is current); an abandoned one's is refused.
    func receive(_ chunk: Data, evenIfFull: Bool, of number: Int?) -> StreamingAnswer {
        let (answer, waiter) = lock.withLock { () -> (StreamingAnswer, CheckedContinuation<Void, Never>?) in
            if let number, !exchange.isCurrent(number) { return (.stop, nil) }
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

    func handedOver() { handedOver(of: nil) }

    func handedOver(of number: Int?) {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard number.map(exchange.isCurrent) ?? true, buffer.hasChunk else { return nil }
            defer { reader = nil }
            return reader
        }
        waiter?.resume()
    }

    var wantsMore: Bool { lock.withLock { buffer.wantsMore } }

    func resume() -> Bool { resume(of: nil) }

    /// (An abandoned exchange's paused transfer goes on, to be refused its next chunk.)
    func resume(of number: Int?) -> Bool {
        lock.withLock {
            if let number, !exchange.isCurrent(number) { return true }
            return buffer.resume()
        }
    }

    var lastTaken: ContinuousClock.Instant? { lock.withLock { taken } }

    func setWaker(_ waker: (@Sendable () -> Void)?) { setWaker(waker, of: nil) }

    func setWaker(_ waker: (@Sendable () -> Void)?, of number: Int?) {
        lock.withLock { if number.map(exchange.isCurrent) ?? true { self.waker = waker } }
    }

    /// Once its head was handed to the stream's caller, a retrier repeats nothing.
    var isCommitted: Bool { lock.withLock { headHandedOver } }

    // MARK: Consumer side

    /// Stops the transfer and ends the stream with `.cancelled` (what waits is dropped).
    func cancel() {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            cancelled = true
            if buffer.end == nil { buffer.cancel(cancelledError) }
            defer { reader = nil }
            return reader
        }
        cancellation.cancel()
        waiter?.resume()
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

    /// Whether a reader waits for a chunk now (tests).
    var readerWaits: Bool { lock.withLock { reader != nil } }

    /// `false` after the first call: a stream's body is read once.
    func beginIteration() -> Bool {
        lock.withLock {
            defer { iterated = true }
            return !iterated
        }
    }

    /// Returns once no transfer of the stream runs and its handle was released (tests count
    /// descriptors).
    func awaitTransferEnd() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = lock.withLock { () -> Bool in
                let runs = exchange.transferRuns || endRunning != nil
                if runs { endWaiters.append(continuation) }
                return !runs
            }
            if ended { continuation.resume() }
        }
    }

    /// Whether the body's end (or failure) is there for the reader (tests).
    var bodyEnded: Bool { lock.withLock { buffer.end != nil } }

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
