import Foundation

/// Where the code of a session's async sends runs between its waits: interceptors, hop rules,
/// redirects, the cache, validation, retry decisions. A task executor over threads of the
/// session's own (started on demand, ending when idle), so that
/// - an interceptor that blocks (a lock, a file, a token refresh by a blocking send) holds one
///   of these threads, never the transfer loop's thread nor Swift's cooperative pool, which a
///   blocking `send(requests:)` called from async code could otherwise starve;
/// - an exchange in flight holds none: while bytes move, its task is suspended.
///
/// Up to `maxThreads` run at once; more jobs wait in order.
final class SessionExecutor: TaskExecutor, @unchecked Sendable {
    private let threads: TransferThreads

    init(maxThreads: Int) {
        threads = TransferThreads(maxThreads: maxThreads, idleTimeout: 30, threadName: "HTTPTransport.pipeline")
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        threads.run { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }

    /// The session is gone: threads end once their jobs ran (`TransferThreads.close()`).
    func close() { threads.close() }

    /// Threads alive now, and jobs waiting (for tests).
    var counts: (threads: Int, waiting: Int) { threads.counts }
}
