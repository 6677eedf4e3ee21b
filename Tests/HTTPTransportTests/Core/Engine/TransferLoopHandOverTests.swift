import CCurl
import Foundation
@testable import HTTPTransport
import XCTest

/// What other threads hand the transfer loop, on a scripted multi handle (`ScriptedMulti`) and no
/// server: the hand-over arrays the loop keeps between rounds (swapped, not reallocated) lose no
/// transfer and hold none after its round; a cancellation handle's wakers, the first of which
/// has a place of its own, all run.
final class TransferLoopHandOverTests: XCTestCase {
    /// A prepared transfer on a fresh easy handle (never performed: the multi handle is scripted).
    private func transfer(on loop: TransferLoop? = nil, onFinish: (@Sendable (CURLcode) -> Void)? = nil) throws -> LoopTransfer {
        let handle = try XCTUnwrap(EasyHandle())
        let url = "http://127.0.0.1:9/"
        handle.transferState.begin(control: TransferControl(), requestURL: url, maxResponseSize: 1 << 20)
        handle.transferSlot.pointee.state = handle.transferState.opaque
        return LoopTransfer(handle: handle, state: handle.transferState, request: RawRequest(url: try XCTUnwrap(URL(string: url))),
                            engine: nil, loop: loop, onFinish: onFinish)
    }

    /// Runs `transfers` on `loop` at once, from as many tasks; their codes, once all ended (nil:
    /// not within 20 s). A task holds its transfer only while it performs it (`performNext`).
    private func performAll(_ transfers: [LoopTransfer], on loop: TransferLoop) -> [CURLcode]? {
        let codes = Locked<[CURLcode]>([])
        let queue = Locked(transfers)
        let ended = DispatchSemaphore(value: 0)
        for _ in transfers {
            Task { await performNext(from: queue, on: loop, into: codes, then: ended) }
        }
        for _ in transfers where ended.wait(timeout: .now() + 20) != .success { return nil }
        return codes.withLock { $0 }
    }

    func testBurstsOfHandOversAcrossRoundsEachEndOnceAndNoneIsHeldAfterwards() throws {
        let multi = ScriptedMulti(finishesWhenAdded: true)
        let loop = TransferLoop(sessionLoopOn: multi)
        defer { loop.stop() }
        var released: [() -> LoopTransfer?] = []
        for burst in 0..<3 {
            var transfers = try (0..<40).map { _ in try transfer() }
            // (Counted by address, which a handle freed in an earlier burst may hand on.)
            let handles = transfers.map(\.handle.curl)
            let before = handles.map { multi.traffic(of: $0) }
            XCTAssertEqual(performAll(transfers, on: loop), Array(repeating: CURLE_OK, count: 40), "burst \(burst)")
            for (curl, earlier) in zip(handles, before) {
                XCTAssertEqual(multi.traffic(of: curl).adds - earlier.adds, 1)
                XCTAssertEqual(multi.traffic(of: curl).removes - earlier.removes, 1)
            }
            XCTAssertEqual(loop.counts.submitted, 0)
            released += transfers.map { transfer in { [weak transfer] in transfer } }
            transfers = []
        }
        // One more transfer's round passes after the bursts' rounds: by then the loop holds
        // none of theirs (no hand-over array keeps a transfer until some later round).
        XCTAssertEqual(performAll([try transfer()], on: loop), [CURLE_OK])
        XCTAssertEqual(released.filter { $0() != nil }.count, 0, "transfers of rounds past are still held")
    }

    /// A transfer handed over while a round runs (as a task resumed by that round hands over its
    /// next one) does not wake the poll, and the poll after the round does not wait for one: the
    /// next round takes it at once. (The poll here waits only for wake-ups: a wait is a stall.)
    func testATransferHandedOverDuringARoundIsTakenByTheNextRoundWithoutAWakeUp() throws {
        let multi = ScriptedMulti(waitsOnlyForWakeUps: true, stallLimit: 30, finishesWhenAdded: true)
        let loop = TransferLoop(sessionLoopOn: multi)
        defer { loop.stop() }
        XCTAssertEqual(performAll([try transfer(on: loop)], on: loop), [CURLE_OK])
        let finished = DispatchSemaphore(value: 0)
        let during = try transfer(on: loop) { _ in finished.signal() }
        // (Counted by address, which the first transfer's freed handle may have handed on.)
        let addsBefore = multi.traffic(of: during.handle.curl).adds
        let pending = Locked<LoopTransfer?>(during)
        multi.setWork {
            if let next = pending.withLock({ state in defer { state = nil }; return state }) { XCTAssertTrue(loop.enqueue(next)) }
        }
        let wakeUps = multi.wakeUps
        // (One hand-over from outside, which wakes the waiting poll, for a round to run.)
        XCTAssertEqual(performAll([try transfer(on: loop)], on: loop), [CURLE_OK])
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success, "the transfer handed over during a round never ended")
        multi.setWork(nil)
        // (That one wakes it only if the loop reached its poll first.)
        XCTAssertLessThanOrEqual(multi.wakeUps - wakeUps, 1, "only the hand-over from outside the round may wake the poll")
        XCTAssertEqual(multi.counts.stalls, 0, "the poll after the round waited although a transfer was handed over")
        XCTAssertEqual(multi.traffic(of: during.handle.curl).adds - addsBefore, 1)
    }

    func testEveryWakerOfACancellationHandleRunsTheFirstsPlaceIncluded() {
        let handle = CancellationHandle()
        let runs = Locked<[String: Int]>([:])
        let waker = { (name: String) -> @Sendable () -> Void in { runs.withLock { $0[name, default: 0] += 1 } } }
        let first = handle.addWaker(waker("first"))
        let second = handle.addWaker(waker("second"))
        _ = handle.addWaker(waker("third"))
        handle.removeWaker(first)
        let fourth = handle.addWaker(waker("fourth"))  // (into the first's free place)
        handle.removeWaker(second)
        handle.cancel()
        XCTAssertTrue(handle.isCancelled)
        XCTAssertEqual(runs.withLock { $0 }, ["third": 1, "fourth": 1])
        handle.removeWaker(fourth)
        handle.removeWaker(12_345)  // (unknown: nothing happens)
        handle.cancel()
        XCTAssertEqual(runs.withLock { $0 }, ["third": 2, "fourth": 1])
    }

    /// An object registered as a waker (a transfer of the loop is its cancellation's waker
    /// itself) runs as a closure does, in the first place or another, and not once removed.
    func testAnObjectWakerRunsLikeAClosureInEitherPlaceUntilRemoved() {
        final class Counting: CancellationWaker, @unchecked Sendable {
            let count = Locked(0)
            func cancellationRequested() { count.withLock { $0 += 1 } }
        }
        let handle = CancellationHandle()
        let (inFirstPlace, inOtherPlace, removed) = (Counting(), Counting(), Counting())
        let closureRuns = Locked(0)
        _ = handle.addWaker(inFirstPlace)
        _ = handle.addWaker { closureRuns.withLock { $0 += 1 } }
        handle.removeWaker(handle.addWaker(removed))
        _ = handle.addWaker(inOtherPlace)
        handle.cancel()
        XCTAssertEqual([inFirstPlace, inOtherPlace, removed].map { $0.count.withLock { $0 } }, [1, 1, 0])
        XCTAssertEqual(closureRuns.withLock { $0 }, 1)
    }
}

/// One task's part of `performAll`: the next transfer of `queue`, its code into `codes`.
private func performNext(from queue: Locked<[LoopTransfer]>, on loop: TransferLoop,
                         into codes: Locked<[CURLcode]>, then ended: DispatchSemaphore) async {
    let code = await performNext(from: queue, on: loop)
    codes.withLock { $0.append(code) }
    ended.signal()
}

private func performNext(from queue: Locked<[LoopTransfer]>, on loop: TransferLoop) async -> CURLcode {
    guard let transfer = queue.withLock({ $0.popLast() }) else { return CURLE_FAILED_INIT }
    return await loop.perform(transfer)
}
