import Foundation

/// The session's `maxConcurrentTransfers`: at most `limit` async sends, fan-out requests and
/// streams run at once; the others wait, first come first served, holding no thread. A waiter
/// waits at most until its deadline (its request's time-out, counted from the send), then
/// leaves the queue with `.timedOut`; a cancelled one leaves it with `.cancelled`. Either way
/// it holds no place, and a place freed meanwhile goes to the next waiter.
final class TransferGate: @unchecked Sendable {
    /// How a wait for a place ended.
    enum Admission: Equatable {
        /// A place was taken: give it back with `leave()`.
        case entered
        /// The task was cancelled first.
        case cancelled
        /// The deadline passed first.
        case timedOut
    }

    /// A queued waiter: nil continuation while it is about to queue.
    private struct Waiter {
        var continuation: CheckedContinuation<Admission, Never>?
        var deadline: ContinuousClock.Instant?
        var timer: Task<Void, Never>?
    }

    let limit: Int
    private let lock = NSLock()
    // Guarded by `lock`, which already keeps any two accesses apart: no dynamic exclusivity
    // check on top (one per send entering and one leaving, ~75 instructions each).
    @exclusivity(unchecked) private var running = 0
    @exclusivity(unchecked) private var nextID: UInt64 = 0
    /// Waiters by id. A waiter served, cancelled or timed out is gone.
    @exclusivity(unchecked) private var waiters: [UInt64: Waiter] = [:]
    /// Queued waiters' ids in arrival order (some may have left since).
    @exclusivity(unchecked) private var order: [UInt64] = []
    @exclusivity(unchecked) private var orderStart = 0

    init(limit: Int) { self.limit = max(1, limit) }

    /// Waits for a place, until `deadline` at most (nil: for as long as it takes).
    nonisolated(nonsending) func enter(deadline: ContinuousClock.Instant? = nil) async -> Admission {
        let id: UInt64? = lock.withLock {
            if running < limit, waiters.isEmpty {
                running += 1
                return nil
            }
            nextID += 1
            waiters[nextID] = Waiter(deadline: deadline)
            return nextID
        }
        guard let id else { return .entered }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Admission, Never>) in
                if let answer = queue(id, continuation) { continuation.resume(returning: answer) }
            }
        } onCancel: {
            end(id, with: .cancelled)
        }
    }

    /// Queues a waiter, or answers at once: cancelled meanwhile, a place free, or its deadline past.
    private func queue(_ id: UInt64, _ continuation: CheckedContinuation<Admission, Never>) -> Admission? {
        lock.withLock {
            guard var waiter = waiters[id] else { return .cancelled }
            // A place freed before this waiter queued (`leave` serves queued waiters first, so
            // none is left ahead of it).
            if running < limit {
                waiters[id] = nil
                running += 1
                return .entered
            }
            if let deadline = waiter.deadline {
                guard deadline > .now else {
                    waiters[id] = nil
                    return .timedOut
                }
                waiter.timer = Task { [weak self] in
                    // Cancelled when the waiter got its place or left.
                    guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
                    self?.end(id, with: .timedOut)
                }
            }
            waiter.continuation = continuation
            waiters[id] = waiter
            order.append(id)
            return nil
        }
    }

    /// Gives a place back: the first waiter still queued takes it.
    func leave() {
        lock.lock()
        // Nobody queued (the common case): the place is free, and no waiter's value is made,
        // copied or destroyed (a waiter's deadline has a size known only at run time, so each of
        // those goes through its type's value witnesses: ~1.3k instructions per send).
        guard orderStart < order.count else {
            if orderStart > 0 {  // every queued id was served: the queue starts over
                order.removeAll(keepingCapacity: true)
                orderStart = 0
            }
            running -= 1
            lock.unlock()
            return
        }
        let next = takeFirstQueued()
        lock.unlock()
        next?.timer?.cancel()
        next?.continuation?.resume(returning: .entered)
    }

    /// The first waiter still queued, out of the queue; nil when none is, and then the place is
    /// free (under the lock).
    private func takeFirstQueued() -> Waiter? {
        while orderStart < order.count {
            let id = order[orderStart]
            orderStart += 1
            if let waiter = waiters.removeValue(forKey: id), waiter.continuation != nil {
                compactOrder()
                return waiter
            }
        }
        compactOrder()
        running -= 1
        return nil
    }

    /// Drops the served part of `order` now and then (under the lock).
    private func compactOrder() {
        guard orderStart > 1024, orderStart * 2 > order.count else { return }
        order.removeFirst(orderStart)
        orderStart = 0
    }

    /// A waiter leaves the queue without a place (if it is still there: a place may have come
    /// first, and then it keeps it).
    private func end(_ id: UInt64, with admission: Admission) {
        let waiter = lock.withLock { waiters.removeValue(forKey: id) }
        waiter?.timer?.cancel()
        waiter?.continuation?.resume(returning: admission)
    }


    /// Why a send that waited for a place until its deadline fails, and how to avoid it.
    func timedOut(after timeout: TimeInterval, url: String? = nil) -> HTTPTransportError {
        HTTPTransportError(code: .timeout, message: "The request's time-out of \(String(format: "%g", timeout)) s ran out while it waited for one of the session's \(limit) places (maxConcurrentTransfers): finish, cancel or drop the streams and sends that hold them, or raise the limit.", url: url)
    }

    /// Takes a place if one is free and nobody waits; `false` otherwise (then `enter`).
    func enterIfFree() -> Bool {
        lock.withLock {
            guard running < limit, waiters.isEmpty else { return false }
            running += 1
            return true
        }
    }

    /// `enter(deadline:)` for a thread that may block: it waits on a one-shot signal the
    /// entering task gives (the blocking interpreter's form of `HTTPSendAction.enter`).
    func enterBlocking(deadline: ContinuousClock.Instant) -> Admission {
        let answer = BlockingAnswer()
        Task { answer.give(await enter(deadline: deadline)) }
        return answer.wait()
    }

    /// Sends running and waiting now (for tests and telemetry).
    var counts: (running: Int, waiting: Int) { lock.withLock { (running, waiters.count) } }
    /// Waiters queued in arrival order now (past their first step, which only counts them), for tests.
    var queuedCount: Int { lock.withLock { waiters.values.filter { $0.continuation != nil }.count } }
}

/// The latest time a send may wait for a place: its request's time-out from the call, on the
/// continuous clock, held as a `Duration` since a fixed instant. (`ContinuousClock.Instant` is
/// not frozen: a value holding one, as a send's context and a step's action do, has its layout
/// computed at run time, and every async frame holding it was allocated on the task's allocator:
/// ~6k instructions per async send.)
struct GateDeadline: Sendable {
    private static let origin = ContinuousClock.now
    private let sinceOrigin: Duration

    /// The deadline of a send made now with `timeout` (its request's).
    static func after(_ timeout: TimeInterval) -> GateDeadline {
        GateDeadline(sinceOrigin: (ContinuousClock.now - origin) + .milliseconds(CurlEngine.milliseconds(timeout)))
    }

    /// The deadline as an instant of the continuous clock (for the wait, off the fast path).
    var instant: ContinuousClock.Instant { Self.origin + sinceOrigin }
}

/// One admission handed from the entering task to the blocked thread, under a condition both take.
private final class BlockingAnswer: @unchecked Sendable {
    private let condition = NSCondition()
    private var admission: TransferGate.Admission?  // guarded by `condition`

    func give(_ value: TransferGate.Admission) {
        condition.withLock {
            admission = value
            condition.signal()
        }
    }

    func wait() -> TransferGate.Admission {
        condition.withLock {
            while admission == nil { condition.wait() }
            return admission ?? .cancelled
        }
    }
}
