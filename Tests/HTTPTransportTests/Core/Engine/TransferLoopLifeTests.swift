import CCurl
import Foundation
@testable import HTTPTransport
import XCTest

/// The transfer loop's own rules, on a scripted multi handle (`ScriptedMulti`) and no server: the
/// loop's life, a transfer ending exactly once whatever ends it first, and wake-ups never lost.
final class TransferLoopLifeTests: XCTestCase {
    /// A prepared transfer on a fresh easy handle (never performed: the multi handle is scripted).
    /// With `loop`, its result is handed back under the loop's lock, as the engine's are.
    private func transfer(cancellation: CancellationHandle? = nil, on loop: TransferLoop? = nil,
                          onFinish: (@Sendable (CURLcode) -> Void)? = nil) throws -> LoopTransfer {
        let handle = try XCTUnwrap(EasyHandle())
        let url = "http://127.0.0.1:9/"
        handle.transferState.begin(control: TransferControl(cancellation: cancellation), requestURL: url, maxResponseSize: 1 << 20)
        handle.transferSlot.pointee.state = handle.transferState.opaque
        return LoopTransfer(handle: handle, state: handle.transferState, request: RawRequest(url: try XCTUnwrap(URL(string: url))),
                            engine: nil, loop: loop, onFinish: onFinish)
    }

    /// Starts `loop.perform(transfer)` in a task: its code, once `ended` was signalled.
    private func start(_ transfer: LoopTransfer, on loop: TransferLoop) -> (result: ThreadResult<CURLcode>, ended: DispatchSemaphore) {
        let (result, ended) = (ThreadResult<CURLcode>(), DispatchSemaphore(value: 0))
        Task {
            result.set(await loop.perform(transfer))
            ended.signal()
        }
        return (result, ended)
    }

    /// `loop.perform(transfer)` in a task; its code, or nil when it did not end within `seconds`.
    private func perform(_ transfer: LoopTransfer, on loop: TransferLoop, seconds: TimeInterval = 10) -> CURLcode? {
        let (result, ended) = start(transfer, on: loop)
        guard ended.wait(timeout: .now() + seconds) == .success else { return nil }
        return result.value
    }

    func testTheLoopStartsWithItsFirstTransferAndAHandOverAfterItStoppedFailsAtOnce() throws {
        let multi = ScriptedMulti(finishesWhenAdded: true)
        let loop = TransferLoop(sessionLoopOn: multi)
        XCTAssertFalse(loop.counts.threadRunning)
        let first = try transfer()
        XCTAssertEqual(perform(first, on: loop), CURLE_OK)
        XCTAssertTrue(loop.counts.threadRunning)
        XCTAssertEqual(multi.traffic(of: first.handle.curl).adds, 1)
        XCTAssertEqual(multi.traffic(of: first.handle.curl).removes, 1)
        loop.stop()
        XCTAssertFalse(loop.counts.threadRunning)
        XCTAssertTrue(multi.counts.closed)
        let late = try transfer()
        XCTAssertEqual(perform(late, on: loop), CURLE_FAILED_INIT, "a transfer handed to a stopped loop must fail, not hang")
        XCTAssertEqual(late.state.storedError?.message, "The session's transfer loop has stopped.")
        XCTAssertEqual(multi.traffic(of: late.handle.curl).adds, 0)
        loop.stop()  // (twice: nothing happens)
    }

    func testALoopThatNeverRanStopsAtOnceAndRefusesTransfers() throws {
        let multi = ScriptedMulti(finishesWhenAdded: true)
        let loop = TransferLoop(sessionLoopOn: multi)
        loop.stop()
        XCTAssertTrue(multi.counts.closed)
        let late = try transfer()
        XCTAssertEqual(perform(late, on: loop), CURLE_FAILED_INIT)
        XCTAssertFalse(loop.counts.threadRunning, "a stopped loop started a thread")
        XCTAssertEqual(multi.counts.rounds, 0)
    }

    func testStopWaitsForTheTransfersInFlightWhichEndWithTheirOwnResult() throws {
        let multi = ScriptedMulti()
        let loop = TransferLoop(sessionLoopOn: multi)
        let inFlight = try transfer()
        let (result, ended) = start(inFlight, on: loop)
        XCTAssertTrue(multi.awaitAdded(inFlight.handle.curl))
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            loop.stop()
            stopped.signal()
        }.start()
        let round = multi.counts.rounds
        XCTAssertTrue(multi.awaitRound(after: round), "stop() did not wake the loop")
        XCTAssertFalse(inFlight.isFinished, "stopping cut a transfer in flight")
        multi.finish(inFlight.handle.curl, code: CURLE_OK)
        XCTAssertEqual(ended.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(stopped.wait(timeout: .now() + 10), .success, "stop() did not return once the last transfer ended")
        XCTAssertEqual(result.value, CURLE_OK)
        XCTAssertEqual(multi.traffic(of: inFlight.handle.curl).removes, 1)
        XCTAssertTrue(multi.counts.closed)
    }

    func testATransferCancelledBeforeItIsHandedOverEndsCancelledAndNeverJoinsTheMultiHandle() throws {
        let multi = ScriptedMulti()
        let loop = TransferLoop(sessionLoopOn: multi)
        defer { loop.stop() }
        let cancellation = CancellationHandle()
        cancellation.cancel()
        let cancelled = try transfer(cancellation: cancellation)
        XCTAssertEqual(perform(cancelled, on: loop), CURLE_ABORTED_BY_CALLBACK)
        XCTAssertEqual(cancelled.state.storedError?.code, .cancelled)
        XCTAssertEqual(multi.traffic(of: cancelled.handle.curl).adds, 0)
    }

    /// The cancellation's wake-up reaches the loop before the transfer does (the waker is set
    /// before the hand-over): the loop must still end the transfer when it comes.
    func testACancellationThatReachesTheLoopBeforeItsTransferStillEndsIt() throws {
        let multi = ScriptedMulti()
        let loop = TransferLoop(sessionLoopOn: multi)
        defer { loop.stop() }
        let warmUp = try transfer()
        XCTAssertTrue(loop.enqueue(warmUp))
        XCTAssertTrue(multi.awaitAdded(warmUp.handle.curl))
        let cancellation = CancellationHandle()
        let finished = DispatchSemaphore(value: 0)
        let late = try transfer(cancellation: cancellation) { _ in finished.signal() }
        cancellation.cancel()
        let round = multi.counts.rounds
        loop.cancel(late)
        XCTAssertTrue(multi.awaitRound(after: round))
        XCTAssertTrue(loop.enqueue(late))
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success, "the cancelled transfer ran on")
        XCTAssertEqual(late.code, CURLE_ABORTED_BY_CALLBACK)
        XCTAssertFalse(multi.holds(late.handle.curl))
        multi.finish(warmUp.handle.curl)
    }

    /// libcurl's end, two cancellations and the loop's stop race for each transfer: exactly one
    /// of them ends it, its result is that one's, and its handle leaves the multi handle once
    /// (its result handed back under a lock of its own, or under the loop's as the engine's are).
    func testATransferEndsExactlyOnceWhenItsEndItsCancellationAndStopRace() throws {
        for iteration in 0..<200 {
            let multi = ScriptedMulti()
            let loop = TransferLoop(sessionLoopOn: multi)
            let cancellation = CancellationHandle()
            let endings = Locked(0)
            let racing = try transfer(cancellation: cancellation, on: iteration.isMultiple(of: 3) ? nil : loop) { _ in
                endings.withLock { $0 += 1 }
            }
            let (result, ended) = start(racing, on: loop)
            XCTAssertTrue(multi.awaitAdded(racing.handle.curl))
            let go = DispatchGroup()
            let racers: [@Sendable () -> Void] = [
                { multi.finish(racing.handle.curl, code: CURLE_OK) },
                { cancellation.cancel() },
                { cancellation.cancel() },
                { if iteration.isMultiple(of: 2) { loop.stop() } },
            ]
            for racer in racers.shuffled() {
                go.enter()
                Thread {
                    racer()
                    go.leave()
                }.start()
            }
            XCTAssertEqual(ended.wait(timeout: .now() + 10), .success, "iteration \(iteration): the transfer never ended")
            XCTAssertEqual(go.wait(timeout: .now() + 10), .success)
            loop.stop()
            XCTAssertEqual(endings.withLock { $0 }, 1, "iteration \(iteration)")
            XCTAssertTrue([CURLE_OK, CURLE_ABORTED_BY_CALLBACK].contains(result.value), "iteration \(iteration)")
            XCTAssertEqual(result.value == CURLE_OK, racing.state.storedError == nil, "iteration \(iteration)")
            let traffic = multi.traffic(of: racing.handle.curl)
            XCTAssertEqual(traffic.adds, 1, "iteration \(iteration)")
            XCTAssertEqual(traffic.removes, 1, "iteration \(iteration)")
        }
    }

    /// A hand-over between the loop's last look ("nothing to do") and its poll must end that
    /// poll: the poll here waits only for wake-ups, so a lost one is a stall.
    func testAHandOverJustBeforeThePollWakesIt() throws {
        let multi = ScriptedMulti(waitsOnlyForWakeUps: true, stallLimit: 30, finishesWhenAdded: true)
        let loop = TransferLoop(sessionLoopOn: multi)
        defer { loop.stop() }
        XCTAssertEqual(perform(try transfer(), on: loop), CURLE_OK)
        let finished = DispatchSemaphore(value: 0)
        let late = try transfer { _ in finished.signal() }
        multi.beforeNextPoll { XCTAssertTrue(loop.enqueue(late)) }
        // (A round so that the loop reaches its poll with the hook set.)
        multi.wake()
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success, "the hand-over's wake-up was lost")
        XCTAssertEqual(multi.counts.stalls, 0)
    }

    func testHandOversFromManyThreadsAllEndWithoutAStall() throws {
        let multi = ScriptedMulti(waitsOnlyForWakeUps: true, stallLimit: 30, finishesWhenAdded: true)
        let loop = TransferLoop(sessionLoopOn: multi)
        defer { loop.stop() }
        let (threads, each) = (4, 250)
        let finished = DispatchSemaphore(value: 0)
        var batches: [[LoopTransfer]] = []
        for _ in 0..<threads {
            batches.append(try (0..<each).map { _ in try transfer { _ in finished.signal() } })
        }
        for batch in batches {
            Thread { for transfer in batch { _ = loop.enqueue(transfer) } }.start()
        }
        for number in 0..<threads * each {
            guard finished.wait(timeout: .now() + 10) == .success else {
                return XCTFail("only \(number) of \(threads * each) transfers ended: a wake-up was lost")
            }
        }
        XCTAssertEqual(multi.counts.stalls, 0)
    }
}
