import Dispatch
import Foundation
import HTTPTransport

/// Takes jobs from `queue` on the calling thread and runs each as a task, at most `inFlight` at
/// once, until the queue is closed and empty; returns when the last task ended. Cancelling
/// `cancellation` cancels the tasks still running (their sends throw `.cancelled` at once).
func runAsyncWorkers(inFlight: Int, cancellation: CancellationHandle, _ work: @escaping @Sendable (Job) async -> Void) {
    let slots = DispatchSemaphore(value: inFlight)
    let running = RunningTasks()
    let group = DispatchGroup()
    let stop = Thread {
        // Bounded: checks ten times a second until every task ended.
        while group.wait(timeout: .now() + 0.1) == .timedOut {
            if cancellation.isCancelled { running.cancelAll() }
        }
    }
    while let job = queue.pop() {
        slots.wait()
        group.enter()
        running.start(job.id) {
            await work(job)
            slots.signal()
            group.leave()
        }
    }
    stop.start()
    group.wait()
}

/// The tasks in flight, so that a second signal can cancel them.
final class RunningTasks: @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [Int: Task<Void, Never>] = [:]  // guarded by `lock`
    private var cancelled = false  // guarded by `lock`

    func start(_ id: Int, _ body: @escaping @Sendable () async -> Void) {
        lock.withLock {
            let task = Task {
                await body()
                self.finished(id)
            }
            tasks[id] = task
            if cancelled { task.cancel() }
        }
    }

    private func finished(_ id: Int) { _ = lock.withLock { tasks.removeValue(forKey: id) } }

    func cancelAll() {
        lock.withLock {
            cancelled = true
            for task in tasks.values { task.cancel() }
        }
    }
}
