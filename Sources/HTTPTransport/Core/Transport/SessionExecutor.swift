import Foundation

/// Where the code of a session's async sends runs between its waits: interceptors, hop rules,
/// redirects, the cache, validation, retry decisions. A task executor over threads of the
/// session's own (started on demand, ending when idle), so that
/// - an interceptor that blocks (a lock, a file, a token refresh by a blocking send) holds one
///   of these threads, never the transfer loop's thread nor Swift's cooperative pool, which a
///   blocking `send(requests:)` called from async code could otherwise starve;
/// - an exchange in flight holds none: while bytes move, its task is suspended.
///
/// Up to `maxThreads` run at once; more jobs wait in order. An async send passes through here
/// two or three times (its start, its transfer's end), so the queue is kept lean: one array of
/// jobs in order, one thread woken per job (not `TransferThreads`, whose per-origin queues,
/// string keys and closure per job cost an async GET about 5,000 instructions).
final class SessionExecutor: TaskExecutor, @unchecked Sendable {
    let maxThreads: Int
    private let idleTimeout: TimeInterval
    // Guarded by `condition`'s lock.
    private let condition = NSCondition()
    /// Jobs in order; `jobs[..<next]` have been taken (a queue without moving the rest each time).
    private var jobs: [UnownedJob] = []
    private var next = 0
    private var threads = 0
    private var idle = 0
    private var closed = false

    init(maxThreads: Int, idleTimeout: TimeInterval = 30) {
        self.maxThreads = max(1, maxThreads)
        self.idleTimeout = idleTimeout
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        // A new thread when the waiting jobs outnumber the idle threads that will take them;
        // else one idle thread is woken, for the one job.
        let startThread = jobs.count - next > idle && threads < maxThreads
        if startThread { threads += 1 } else if idle > 0 { condition.signal() }
        condition.unlock()
        if startThread {
            let thread = Thread { [self] in work() }
            thread.name = "HTTPTransport.pipeline"
            thread.start()
        }
    }

    private func work() {
        condition.lock()
        while true {
            if next < jobs.count {
                let job = jobs[next]
                next += 1
                if next == jobs.count {
                    jobs.removeAll(keepingCapacity: true)
                    next = 0
                }
                condition.unlock()
                job.runSynchronously(on: asUnownedTaskExecutor())
                condition.lock()
                continue
            }
            if closed { break }
            idle += 1
            let signalled = condition.wait(until: Date(timeIntervalSinceNow: idleTimeout))
            idle -= 1
            if !signalled, next == jobs.count { break }
        }
        threads -= 1
        condition.unlock()
    }

    /// The session is gone: threads end once no job waits, instead of idling for `idleTimeout`.
    /// Jobs queued later still run (on a thread started for them).
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
