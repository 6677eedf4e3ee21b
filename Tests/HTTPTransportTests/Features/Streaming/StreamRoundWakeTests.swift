@testable import HTTPTransport
import XCTest

/// When a round's end wakes a stream's reader: the first bytes and a slow stream's at once; after
/// a round of bulk, later (the buffer's half or the next round's end), and never longer than the
/// loop's next look.
final class StreamRoundWakeTests: XCTestCase {
    func testTheFirstBytesWakeTheReaderEvenInBulk() {
        var wake = StreamRoundWake()
        XCTAssertTrue(wake.roundEnded(), "a round without bytes (the head) wakes as before")
        wake.add(4 * StreamRoundWake.bulk)
        XCTAssertTrue(wake.roundEnded())
        XCTAssertFalse(wake.isPutOff)
    }

    func testRoundsOfLessThanAFullReadWakeTheReaderEachTime() {
        var wake = StreamRoundWake()
        for _ in 0..<5 {
            wake.add(StreamRoundWake.bulk - 1)
            XCTAssertTrue(wake.roundEnded())
            XCTAssertFalse(wake.isPutOff)
        }
    }

    func testAfterBulkTheWakeWaitsForARoundThatBringsLess() {
        var wake = StreamRoundWake()
        wake.add(10)
        XCTAssertTrue(wake.roundEnded())
        wake.add(StreamRoundWake.bulk)
        XCTAssertFalse(wake.roundEnded())
        XCTAssertTrue(wake.isPutOff)
        wake.add(2 * StreamRoundWake.bulk)
        XCTAssertFalse(wake.roundEnded(), "bulk again: still put off")
        XCTAssertTrue(wake.roundEnded(), "a round that brought nothing (the loop's look after the put-off) wakes")
        XCTAssertFalse(wake.isPutOff)
    }

    /// While a wake-up is put off the loop looks again within `putOffAtMost`, whatever else is due.
    func testAPutOffWakeBoundsTheLoopsSleep() throws {
        let channel = StreamChannel(url: "http://127.0.0.1/body")
        let (handle, state, receiver) = try StreamReceiver.streaming(into: channel)
        let started = ContinuousClock.now
        XCTAssertEqual(receiver.nextCheck(at: .now, started: started), .seconds(1))
        let bytes = Data(count: StreamRoundWake.bulk)
        for _ in 0..<2 {
            XCTAssertEqual(bytes.withUnsafeBytes { state.receiveBody($0) }, bytes.count)
            XCTAssertTrue(receiver.flushPending(state, handle: handle))
            _ = receiver.roundWake.roundEnded()
        }
        XCTAssertLessThanOrEqual(receiver.nextCheck(at: .now, started: started), StreamRoundWake.putOffAtMost)
        _ = receiver.roundWake.roundEnded()
        XCTAssertEqual(receiver.nextCheck(at: .now, started: started), .seconds(1))
        state.end()
    }

    /// The transfer ends right after a round of bulk whose wake-up was put off: its last flush
    /// wakes the waiting reader (no round's end follows), before the stream's end reaches it.
    func testTheTransfersEndWakesAReaderWhoseWakeWasPutOff() throws {
        let channel = StreamChannel(url: "http://127.0.0.1/body")
        let (handle, state, receiver) = try StreamReceiver.streaming(into: channel)
        defer { state.end() }
        let bulk = Data(count: StreamRoundWake.bulk)
        let got = ThreadResult<Int>(), woken = DispatchSemaphore(value: 0)
        Task {
            var total = 0
            while total < 2 * bulk.count, let chunk = try? await channel.next() { total += chunk.count }
            got.set(total)
            woken.signal()
        }
        // The first round's bytes wake the reader at once; it reads them and waits again.
        XCTAssertEqual(bulk.withUnsafeBytes { state.receiveBody($0) }, bulk.count)
        XCTAssertTrue(receiver.flushPending(state, handle: handle))
        XCTAssertTrue(receiver.roundWake.roundEnded())
        channel.handedOver()
        let deadline = ContinuousClock.now + .seconds(30)
        while !(channel.readerWaits && channel.lastTaken != nil), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
        XCTAssertTrue(channel.readerWaits, "the reader took the first round's bytes and waits again")
        // The next round brings bulk: its wake-up is put off, and the transfer ends with it.
        XCTAssertEqual(bulk.withUnsafeBytes { state.receiveBody($0) }, bulk.count)
        XCTAssertTrue(receiver.flushPending(state, handle: handle))
        XCTAssertFalse(receiver.roundWake.roundEnded())
        XCTAssertTrue(receiver.flushPending(state, handle: handle, final: true))
        XCTAssertEqual(woken.wait(timeout: .now() + 30), .success, "the reader was not woken for the last bytes")
        XCTAssertEqual(got.value, 2 * bulk.count)
        channel.cancel()
    }
}
