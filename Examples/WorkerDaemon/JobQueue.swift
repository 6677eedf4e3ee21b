import Foundation

/// One unit of work; the API call carries its id.
struct Job: Sendable {
    let id: Int
}

/// A bounded FIFO queue: `push` waits while it is full, `pop` waits while it is empty. After
/// `close()`, `push` refuses and `pop` hands out what is left, then `nil`.
final class JobQueue: @unchecked Sendable {
    // @unchecked: every field is read and written under `condition`.
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var head = 0
    private var closed = false
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Adds a job, waiting for room; `false` once the queue is closed.
    func push(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed, jobs.count - head >= capacity { condition.wait() }
        guard !closed else { return false }
        jobs.append(job)
        condition.broadcast()
        return true
    }

    /// The next job, waiting for one; `nil` when the queue is closed and empty.
    func pop() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while !closed, head == jobs.count { condition.wait() }
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        head += 1
        if head > 1024 { jobs.removeFirst(head); head = 0 }
        condition.broadcast()
        return job
    }

    /// Refuses further jobs; with `discardingQueued`, also drops the ones waiting (returns how many).
    @discardableResult
    func close(discardingQueued: Bool = false) -> Int {
        condition.lock()
        defer { condition.unlock() }
        closed = true
        var dropped = 0
        if discardingQueued {
            dropped = jobs.count - head
            jobs.removeAll()
            head = 0
        }
        condition.broadcast()
        return dropped
    }

    /// Jobs waiting.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head
    }
}
