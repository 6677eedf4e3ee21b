import Foundation

/// Progress of an async send, reported off the transfer loop: libcurl calls back on the loop's
/// thread, which must not wait for a handler that may block. Reports queue here, in order, and
/// run on the session's progress threads (`Session.progressThreads`, a bounded pool), one
/// report of this send at a time: a handler that blocks holds one of those threads, so a
/// hundred such sends hold a few threads, not a hundred. A handler's `false` cancels the
/// transfer through its handle.
final class ProgressRelay: @unchecked Sendable {
    private let handler: @Sendable (TransferProgress) -> Bool
    private let cancellation: CancellationHandle
    private let threads: TransferThreads
    private let lock = NSLock()
    // Guarded by `lock`.
    private var pending: [TransferProgress] = []
    /// A job of this relay is queued or running on the threads.
    private var scheduled = false
    private var drainWaiters: [CheckedContinuation<Void, Never>] = []

    init(_ handler: @escaping @Sendable (TransferProgress) -> Bool, cancellation: CancellationHandle,
         threads: TransferThreads) {
        self.handler = handler
        self.cancellation = cancellation
        self.threads = threads
    }

    /// Queues the report; `false` once the handler asked to cancel.
    func report(_ progress: TransferProgress) -> Bool {
        let schedules = lock.withLock { () -> Bool in
            pending.append(progress)
            defer { scheduled = true }
            return !scheduled
        }
        if schedules { threads.run { [self] in handOver() } }
        return !cancellation.isCancelled
    }

    /// Gives the queued reports to the handler, in order, until none is left.
    private func handOver() {
        while true {
            let (reports, waiters) = lock.withLock { () -> ([TransferProgress], [CheckedContinuation<Void, Never>]) in
                let reports = pending
                pending = []
                guard reports.isEmpty else { return (reports, []) }
                scheduled = false
                defer { drainWaiters = [] }
                return ([], drainWaiters)
            }
            guard !reports.isEmpty else {
                for waiter in waiters { waiter.resume() }
                return
            }
            for progress in reports where !cancellation.isCancelled {
                if !handler(progress) { cancellation.cancel() }
            }
        }
    }

    /// Returns once every queued report was handled (before the send returns), holding no thread.
    /// (Out of line: inlined, its continuation, of a size known only at run time, would cost
    /// every send two task allocations, with or without a progress handler.)
    @inline(never)
    func drained() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = lock.withLock { () -> Bool in
                if scheduled { drainWaiters.append(continuation) }
                return !scheduled
            }
            if idle { continuation.resume() }
        }
    }
}
