import Foundation
@testable import HTTPTransport
import XCTest

/// The engine's side of a stream between rounds of the transfer driver: what a round gathered
/// goes to the consumer at its end, within the consumer's buffer, however the bytes arrive.
final class StreamReceiverTests: XCTestCase {
    private let chunk = Data(repeating: 0x61, count: 16 * 1024)

    /// A round that gathers less than a piece never offers it from the write callback; the
    /// round's end must still respect a full buffer (it once forced every round's bytes in, so
    /// a slow reader's buffer grew by a piece a round).
    func testRoundsOfFewBytesPauseTheTransferWhenTheBufferIsFull() throws {
        let limit = 256 * 1024
        let channel = StreamChannel(url: "http://127.0.0.1/endless", limit: limit)
        let (handle, state, receiver) = try StreamReceiver.streaming(into: channel)
        var rounds = 0
        while !receiver.isPaused, rounds < 100 {
            for _ in 0..<2 {  // 32 KiB a round: less than a piece
                XCTAssertEqual(chunk.withUnsafeBytes { state.receiveBody($0) }, chunk.count)
            }
            XCTAssertTrue(receiver.flushPending(state, handle: handle))
            rounds += 1
        }
        XCTAssertTrue(receiver.isPaused, "the full buffer paused the transfer")
        XCTAssertLessThanOrEqual(channel.bufferedBytes, limit)
        // Paused, the next rounds hand nothing more over.
        for _ in 0..<3 { XCTAssertTrue(receiver.flushPending(state, handle: handle)) }
        XCTAssertLessThanOrEqual(channel.bufferedBytes, limit)
        state.end()
    }

    func testTheLastRoundsBytesGoInWhenTheTransferEndsEvenToAFullBuffer() throws {
        let limit = 64 * 1024
        let channel = StreamChannel(url: "http://127.0.0.1/endless", limit: limit)
        let (handle, state, receiver) = try StreamReceiver.streaming(into: channel)
        for _ in 0..<4 { XCTAssertEqual(chunk.withUnsafeBytes { state.receiveBody($0) }, chunk.count) }
        XCTAssertTrue(receiver.flushPending(state, handle: handle))
        XCTAssertEqual(channel.bufferedBytes, limit)
        XCTAssertEqual(chunk.withUnsafeBytes { state.receiveBody($0) }, chunk.count)
        XCTAssertTrue(receiver.flushPending(state, handle: handle))
        XCTAssertEqual(channel.bufferedBytes, limit, "a full buffer takes nothing more while the transfer runs")
        XCTAssertTrue(receiver.flushPending(state, handle: handle, final: true))
        XCTAssertEqual(channel.bufferedBytes, limit + chunk.count, "nothing of a finished transfer is lost")
        state.end()
    }
}
