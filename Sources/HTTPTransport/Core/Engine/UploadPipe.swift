import Foundation

/// The bounded hand-over of a streamed body's chunks from the task or thread that produces
/// them to the transfer's read callback. The producer waits while `StreamedBody.readAhead`
/// bytes are buffered, so a slow connection slows it; the consumer either waits (a blocking
/// send, on its own thread) or takes what is there and is woken when more comes (the
/// session's transfer loop, which must never block).
final class UploadPipe: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var chunks: [Data] = []
    private var head = 0
    private var buffered = 0
    private var ended = false
    private var failure: (any Error)?
    private var closed = false
    private var wantsWake = false
    private var waker: (@Sendable () -> Void)?
    private var spaceWaiter: CheckedContinuation<Void, Never>?

    /// What the consumer takes.
    enum Item {
        case chunk(Data)
        case end
        case failed(any Error)
        /// Nothing yet (a non-waiting take; the waker runs when something comes).
        case notReady
        /// The wait ran past the deadline or the send was cancelled.
        case gaveUp
    }

    // MARK: Producer side

    /// Adds a chunk, waiting (without a thread) while the buffer is full; `false` once the
    /// consumer is gone.
    func put(_ chunk: Data) async -> Bool {
        while true {
            if let added = offer(chunk) { return added }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                condition.lock()
                if closed || buffered < StreamedBody.readAhead {
                    condition.unlock()
                    continuation.resume()
                } else {
                    spaceWaiter = continuation
                    condition.unlock()
                }
            }
        }
    }

    /// Adds a chunk, blocking this thread while the buffer is full; `false` once the consumer is gone.
    func putWaiting(_ chunk: Data) -> Bool {
        while true {
            if let added = offer(chunk) { return added }
            condition.lock()
            while !closed, buffered >= StreamedBody.readAhead { condition.wait() }
            condition.unlock()
        }
    }

    /// Adds the chunk when there is room (`true`), `false` when closed, nil when full.
    private func offer(_ chunk: Data) -> Bool? {
        condition.lock()
        guard !closed else {
            condition.unlock()
            return false
        }
        guard buffered < StreamedBody.readAhead else {
            condition.unlock()
            return nil
        }
        if !chunk.isEmpty {
            chunks.append(chunk)
            buffered += chunk.count
        }
        let wake = takeWaker()
        condition.unlock()
        wake?()
        return true
    }

    /// The source ended, or threw `error`.
    func finish(throwing error: (any Error)?) {
        condition.lock()
        ended = true
        failure = error
        let wake = takeWaker()
        condition.unlock()
        wake?()
    }

    /// The waker to run (outside the lock) when the consumer asked to be woken; signals a waiting one.
    private func takeWaker() -> (@Sendable () -> Void)? {
        condition.broadcast()
        guard wantsWake else { return nil }
        wantsWake = false
        return waker
    }

    // MARK: Consumer side

    /// Runs `waker` when a non-waiting take found nothing and something came.
    func setWaker(_ waker: (@Sendable () -> Void)?) {
        condition.withLock { self.waker = waker }
    }

    /// Whether a take would find something (a chunk, the end or a failure).
    var isReady: Bool { condition.withLock { head < chunks.count || ended } }

    /// The next item: without waiting (`deadline` nil), or waiting until one comes, the
    /// deadline passes or `cancellation` is cancelled.
    func take(until deadline: ContinuousClock.Instant?, cancellation: CancellationHandle?) -> Item {
        condition.lock()
        defer { condition.unlock() }
        while head == chunks.count, !ended {
            guard let deadline else {
                wantsWake = true
                return .notReady
            }
            let now = ContinuousClock.now
            if now >= deadline || cancellation?.isCancelled == true { return .gaveUp }
            // (In slices, so a cancellation is seen without a waker of its own.)
            let slice = min(deadline - now, .milliseconds(50))
            let seconds = Double(slice.components.seconds) + Double(slice.components.attoseconds) * 1e-18
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        }
        guard head < chunks.count else { return failure.map(Item.failed) ?? .end }
        let chunk = chunks[head]
        // (Let go at once: a producer that stays ahead never lets the queue run empty.)
        chunks[head] = Data()
        head += 1
        buffered -= chunk.count
        if head == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
        let waiter = spaceWaiter
        spaceWaiter = nil
        condition.broadcast()
        waiter?.resume()
        return .chunk(chunk)
    }

    /// The consumer is gone: the producer stops at its next chunk.
    func close() {
        condition.lock()
        closed = true
        chunks = []
        buffered = 0
        waker = nil
        let waiter = spaceWaiter
        spaceWaiter = nil
        condition.broadcast()
        condition.unlock()
        waiter?.resume()
    }
}
