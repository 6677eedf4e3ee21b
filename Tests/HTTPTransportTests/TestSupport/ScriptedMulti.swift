import CCurl
import Foundation
@testable import HTTPTransport

/// A multi handle for `TransferLoop`'s own tests, in memory: it keeps the easy handles the loop
/// adds, ends a transfer when the test says so (`finish`, seen by the loop's next round, as
/// libcurl reports a transfer that ended during `curl_multi_perform`), and waits in `poll` until
/// woken. `wake` before a poll is kept for it, as `curl_multi_wakeup` is.
///
/// With `waitsOnlyForWakeUps` a poll ignores the loop's time-out (unless 0) and waits up to
/// `stallLimit` for a wake-up: a lost wake-up then shows as a stall (`stalls`) instead of being
/// hidden by the loop's one-second poll. Unpausing a transfer does not wake the poll here (libcurl's
/// timer would): the loop must not wait after it resumed a transfer.
final class ScriptedMulti: LoopMulti, @unchecked Sendable {
    let waitsOnlyForWakeUps: Bool
    let stallLimit: TimeInterval
    /// Every added transfer ends with `CURLE_OK` in the round after it was added.
    let finishesWhenAdded: Bool
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var onMulti: Set<UnsafeMutableRawPointer> = []
    private var ending: [(UnsafeMutableRawPointer, CURLcode)] = []
    private var ended: [(UnsafeMutableRawPointer, CURLcode)] = []
    private var woken = false
    private var wakeCount = 0
    private var adds: [UnsafeMutableRawPointer: Int] = [:]
    private var removes: [UnsafeMutableRawPointer: Int] = [:]
    private var beforeNextPoll: (() -> Void)?
    private var rounds = 0
    private var stallCount = 0
    private var isClosed = false
    /// Runs on the loop's thread in each `perform` (the transfers' callbacks, as libcurl would).
    private var work: (() -> Void)?
    private var unpauses = 0
    private var onUnpause: ((UnsafeMutableRawPointer) -> Void)?
    private var reserved: [Int] = []

    init(waitsOnlyForWakeUps: Bool = false, stallLimit: TimeInterval = 20, finishesWhenAdded: Bool = false) {
        self.waitsOnlyForWakeUps = waitsOnlyForWakeUps
        self.stallLimit = stallLimit
        self.finishesWhenAdded = finishesWhenAdded
    }

    // MARK: LoopMulti

    func add(_ easy: UnsafeMutableRawPointer) -> Bool {
        condition.withLock {
            onMulti.insert(easy)
            adds[easy, default: 0] += 1
            condition.broadcast()
            if finishesWhenAdded { ending.append((easy, CURLE_OK)) }
        }
        return true
    }

    func remove(_ easy: UnsafeMutableRawPointer) {
        condition.withLock {
            onMulti.remove(easy)
            removes[easy, default: 0] += 1
        }
    }

    func perform() -> Bool {
        let work = condition.withLock { () -> (() -> Void)? in
            rounds += 1
            condition.broadcast()
            ended += ending.filter { onMulti.contains($0.0) }
            ending = []
            return self.work
        }
        work?()
        return true
    }

    func nextFinished() -> (easy: UnsafeMutableRawPointer, code: CURLcode)? {
        condition.withLock {
            while !ended.isEmpty {
                let next = ended.removeFirst()
                if onMulti.contains(next.0) { return (next.0, next.1) }
            }
            return nil
        }
    }

    func poll(_ sockets: UnsafeMutableBufferPointer<curl_waitfd>, milliseconds: Int32) {
        let hook = condition.withLock { () -> (() -> Void)? in
            defer { beforeNextPoll = nil }
            return beforeNextPoll
        }
        hook?()
        condition.lock()
        defer { condition.unlock() }
        // (A poll of 0 ms only looks, in either mode.)
        let waitsForWakeUp = waitsOnlyForWakeUps && milliseconds > 0
        let deadline = Date(timeIntervalSinceNow: waitsForWakeUp ? stallLimit : Double(milliseconds) / 1000)
        while !woken, condition.wait(until: deadline) {}
        if !woken, waitsForWakeUp { stallCount += 1 }
        woken = false
    }

    func wake() {
        condition.withLock {
            guard !isClosed else { return }
            wakeCount += 1
            woken = true
            condition.broadcast()
        }
    }

    func unpause(_ easy: UnsafeMutableRawPointer) {
        let hook = condition.withLock { () -> ((UnsafeMutableRawPointer) -> Void)? in
            unpauses += 1
            return onUnpause
        }
        hook?(easy)
    }

    func reserveConnections(forWebSockets count: Int) { condition.withLock { reserved.append(count) } }

    /// Every count `reserveConnections` was given, in order.
    var reservations: [Int] { condition.withLock { reserved } }

    func httpVersion(of easy: UnsafeMutableRawPointer) -> Int { 0 }

    func close() { condition.withLock { isClosed = true } }

    // MARK: The test's side

    /// The transfer on `easy` ends with `code` (when it is on the multi handle by the next round).
    func finish(_ easy: UnsafeMutableRawPointer, code: CURLcode = CURLE_OK) {
        condition.withLock {
            ending.append((easy, code))
            woken = true
            condition.broadcast()
        }
    }

    /// Runs `hook` on the loop's thread just before its next poll waits.
    func beforeNextPoll(_ hook: @escaping () -> Void) { condition.withLock { beforeNextPoll = hook } }

    /// Runs `work` on the loop's thread in every round, where libcurl would call the callbacks.
    func setWork(_ work: (() -> Void)?) { condition.withLock { self.work = work } }

    /// Rounds begun, polls that waited out `stallLimit` without a wake-up, unpauses, and whether
    /// the loop closed it.
    var counts: (rounds: Int, stalls: Int, unpauses: Int, closed: Bool) {
        condition.withLock { (rounds, stallCount, unpauses, isClosed) }
    }

    /// Runs on the loop's thread when it unpauses a transfer (libcurl hands the held chunk to
    /// the write callback right there).
    func setUnpauseHook(_ hook: ((UnsafeMutableRawPointer) -> Void)?) { condition.withLock { onUnpause = hook } }

    /// The `wake` calls so far (a test's own `finish` is not one).
    var wakeUps: Int { condition.withLock { wakeCount } }

    /// How often the loop added and removed `easy`.
    func traffic(of easy: UnsafeMutableRawPointer) -> (adds: Int, removes: Int) {
        condition.withLock { (adds[easy, default: 0], removes[easy, default: 0]) }
    }

    /// Whether `easy` is on the multi handle now.
    func holds(_ easy: UnsafeMutableRawPointer) -> Bool { condition.withLock { onMulti.contains(easy) } }

    /// Waits until the loop began a round after `round` (false after `seconds`).
    func awaitRound(after round: Int, seconds: TimeInterval = 10) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while rounds <= round, condition.wait(until: deadline) {}
        return rounds > round
    }

    /// Waits until `easy` is on the multi handle (false after `seconds`).
    func awaitAdded(_ easy: UnsafeMutableRawPointer, seconds: TimeInterval = 10) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !onMulti.contains(easy), condition.wait(until: deadline) {}
        return onMulti.contains(easy)
    }
}
