import Foundation

/// The session's `maxConcurrentTransfers`: at most `limit` async sends, fan-out requests and
/// streams run at once; the others wait, first come first served, holding no thread. A waiting
/// send's time-out has not started (its pipeline has not), and a cancelled one leaves the queue.
final class TransferGate: @unchecked Sendable {
    let limit: Int
    private let lock = NSLock()
    // Guarded by `lock`.
    private var running = 0
    private var nextID: UInt64 = 0
    /// Waiters by id: nil continuation while the waiter is about to queue. A waiter served or
    /// cancelled is gone.
    private var waiters: [UInt64: CheckedContinuation<Bool, Never>?] = [:]
    /// Queued waiters' ids in arrival order (some may have been cancelled since).
    private var order: [UInt64] = []
    private var orderStart = 0

    init(limit: Int) { self.limit = max(1, limit) }

    /// Waits for a place; `false` when the task was cancelled first (no place taken).
    func enter() async -> Bool {
        let id: UInt64? = lock.withLock {
            if running < limit, waiters.isEmpty {
                running += 1
                return nil
            }
            nextID += 1
            waiters[nextID] = .some(nil)
            return nextID
        }
        guard let id else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer = lock.withLock { () -> Bool? in
                    guard waiters[id] != nil else { return false }  // cancelled meanwhile
                    // A place freed before this waiter queued (`leave` serves queued waiters
                    // first, so none is left ahead of it).
                    if running < limit {
                        waiters[id] = nil
                        running += 1
                        return true
                    }
                    waiters[id] = continuation
                    order.append(id)
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            cancel(id)
        }
    }

    /// Gives a place back: the first waiter takes it.
    func leave() {
        let next = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            while orderStart < order.count {
                let id = order[orderStart]
                orderStart += 1
                if let entry = waiters.removeValue(forKey: id), let continuation = entry {
                    compactOrder()
                    return continuation
                }
            }
            compactOrder()
            running -= 1
            return nil
        }
        next?.resume(returning: true)
    }

    /// Drops the served part of `order` now and then (under the lock).
    private func compactOrder() {
        guard orderStart > 1024, orderStart * 2 > order.count else { return }
        order.removeFirst(orderStart)
        orderStart = 0
    }

    private func cancel(_ id: UInt64) {
        let continuation = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            guard let entry = waiters.removeValue(forKey: id) else { return nil }
            return entry
        }
        continuation?.resume(returning: false)
    }

    /// Sends running and waiting now (for tests and telemetry).
    var counts: (running: Int, waiting: Int) { lock.withLock { (running, waiters.count) } }
}
