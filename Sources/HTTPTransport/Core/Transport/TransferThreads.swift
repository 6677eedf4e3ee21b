import Foundation

/// Threads for async sends, one pool per session: blocking transfers never occupy the cooperative
/// pool, and one session's slow origins never hold another session's threads. Threads are started
/// on demand, up to `maxThreads` at once, and end after `idleTimeout` seconds without work, or as
/// soon as no job waits once the session that owns the pool is gone (`close()`).
///
/// Jobs wait in order of arrival, with one exception: one origin (scheme, host, port) holds at
/// most `maxPerOrigin` threads (`Session.Configuration.maxConnectionsPerHost`), so while it has
/// that many running, the first waiting job of another origin goes first. A queued send's
/// time-out starts when it runs.
final class TransferThreads: @unchecked Sendable {
    let maxThreads: Int
    let maxPerOrigin: Int
    let idleTimeout: TimeInterval
    let threadName: String
    // Everything below is guarded by `condition`'s lock.
    private let condition = NSCondition()
    /// Waiting jobs per origin, each in arrival order (`sequence`).
    private var waiting: [String: [(sequence: UInt64, job: @Sendable () -> Void)]] = [:]
    private var waitingCount = 0
    private var nextSequence: UInt64 = 0
    /// Running jobs per origin.
    private var running: [String: Int] = [:]
    private var threads = 0
    private var idle = 0
    private var closed = false

    /// A pool; `maxPerOrigin` nil: an origin may take every thread.
    init(maxThreads: Int, maxPerOrigin: Int? = nil, idleTimeout: TimeInterval, threadName: String = "HTTPTransport.async") {
        self.threadName = threadName
        self.maxThreads = max(1, maxThreads)
        self.maxPerOrigin = min(self.maxThreads, max(1, maxPerOrigin ?? self.maxThreads))
        self.idleTimeout = idleTimeout
    }

    /// The origin key of an endpoint: `scheme://host:port`, or "" when it cannot be read.
    static func origin(of endpoint: String) -> String {
        guard let components = URLComponents(string: endpoint), let scheme = components.scheme?.lowercased(),
              let host = components.host?.lowercased() else { return "" }
        return "\(scheme)://\(host):\(components.port ?? (scheme == "https" ? 443 : 80))"
    }

    /// Runs `job` on one of the pool's threads, counted against `origin`.
    func run(origin: String = "", _ job: @escaping @Sendable () -> Void) {
        condition.lock()
        nextSequence += 1
        waiting[origin, default: []].append((nextSequence, job))
        waitingCount += 1
        // A new thread when the waiting jobs outnumber the idle threads that will take them;
        // else one idle thread is woken for the one job (waking all of them, each job woke every
        // idle thread to find nothing: with an async send's two or three hops through the
        // session's executor, most of its CPU went to those wake-ups). An idle thread that
        // cannot take the job (its origin at `maxPerOrigin`) could not anyway: the thread that
        // ends that origin's job takes it (`work`).
        let startThread = waitingCount > idle && threads < maxThreads
        if startThread { threads += 1 } else if idle > 0 { condition.signal() }
        condition.unlock()
        if startThread {
            let thread = Thread { [self] in work() }
            thread.name = threadName
            thread.start()
        }
    }

    /// The oldest waiting job of an origin that may take another thread (under the lock).
    private func takeNext() -> (origin: String, job: @Sendable () -> Void)? {
        var best: (origin: String, sequence: UInt64)?
        for (origin, jobs) in waiting {
            guard let first = jobs.first, running[origin, default: 0] < maxPerOrigin else { continue }
            if let current = best, current.sequence < first.sequence { continue }
            best = (origin, first.sequence)
        }
        guard let origin = best?.origin, var jobs = waiting[origin] else { return nil }
        let job = jobs.removeFirst().job
        waiting[origin] = jobs.isEmpty ? nil : jobs
        waitingCount -= 1
        running[origin, default: 0] += 1
        return (origin, job)
    }

    private func work() {
        condition.lock()
        while true {
            if let (origin, job) = takeNext() {
                condition.unlock()
                job()
                condition.lock()
                running[origin, default: 1] -= 1
                if running[origin] == 0 { running[origin] = nil }
                // A job of this origin may have been waiting for the thread this one held.
                if waitingCount > 0 { condition.broadcast() }
                continue
            }
            if closed, waitingCount == 0 { break }
            idle += 1
            let signalled = condition.wait(until: Date(timeIntervalSinceNow: idleTimeout))
            idle -= 1
            if !signalled, waitingCount == 0 { break }
        }
        threads -= 1
        condition.unlock()
    }

    /// The owner is gone: each thread ends once no job waits, instead of idling for
    /// `idleTimeout` (a program that makes many short-lived sessions would gather threads).
    /// Jobs queued later still run.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Threads alive now, and jobs waiting (for tests and telemetry).
    var counts: (threads: Int, waiting: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (threads, waitingCount)
    }
}
