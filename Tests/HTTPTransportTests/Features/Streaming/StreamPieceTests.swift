import CCurl
import Foundation
@testable import HTTPTransport
import XCTest

/// A stream's pieces in memory lent by its `PiecePool`: the bytes reach the reader exactly as
/// libcurl handed them over, however they are cut, paused and resumed, whatever the reader does
/// with its chunks; and the memory comes back for the next pieces.
final class StreamPieceTests: XCTestCase {
    /// Bytes that differ from one offset to the next, so a lost, repeated or reordered piece shows.
    private static func body(_ count: Int, seed: UInt64) -> Data {
        var state = seed
        return Data((0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        })
    }

    /// The reader's next chunk (one waits).
    private static func take(_ channel: StreamChannel) async throws -> Data {
        let chunk = try await channel.next()
        return try XCTUnwrap(chunk)
    }

    func testAPoolLendsMemoryGivenBackAndKeepsNoMoreThanItsBound() {
        let pool = PiecePool(size: 1024, kept: 2)
        let first = pool.lend(), second = pool.lend(), third = pool.lend()
        pool.giveBack(first)
        XCTAssertEqual(pool.lend(), first, "memory given back is lent again")
        for memory in [first, second, third] { pool.giveBack(memory) }
        XCTAssertEqual(pool.idleCount, 2, "a third idle piece goes back to the system")
    }

    func testAClosedPoolKeepsNothingAndFreesWhatComesBack() {
        let pool = PiecePool(size: 1024, kept: 4)
        let lent = pool.lend(), kept = pool.lend()
        pool.giveBack(kept)
        XCTAssertEqual(pool.idleCount, 1)
        pool.close()
        XCTAssertEqual(pool.idleCount, 0, "the stream ended: its idle pieces go")
        pool.giveBack(lent)
        XCTAssertEqual(pool.idleCount, 0, "a chunk the reader let go of later is freed, not kept")
    }

    func testAPieceGoesBackToThePoolWhenTheReadersChunkGoesAndTheNextPieceReusesIt() async throws {
        let channel = StreamChannel(url: "http://127.0.0.1/body")
        let (handle, state, receiver) = try StreamReceiver.streaming(into: channel)
        let bytes = Self.body(40_000, seed: 1)
        XCTAssertEqual(bytes.withUnsafeBytes { state.receiveBody($0) }, bytes.count)
        XCTAssertTrue(receiver.flushPending(state, handle: handle))
        var chunk = try await channel.next()
        XCTAssertEqual(chunk, bytes)
        let memory = chunk?.withUnsafeBytes { $0.baseAddress }
        chunk = nil
        let again = Self.body(1000, seed: 2)
        XCTAssertEqual(again.withUnsafeBytes { state.receiveBody($0) }, again.count)
        XCTAssertTrue(receiver.flushPending(state, handle: handle))
        let next = try await channel.next()
        XCTAssertEqual(next, again)
        XCTAssertEqual(next?.withUnsafeBytes { $0.baseAddress }, memory, "the second piece was gathered in the first one's memory")
        state.end()
    }

    /// The reader may keep, change and grow its chunks: the memory they hold is theirs until they go.
    func testAReaderThatChangesAndKeepsItsChunksLeavesTheLaterPiecesIntact() async throws {
        let channel = StreamChannel(url: "http://127.0.0.1/body")
        let (handle, state, receiver) = try StreamReceiver.streaming(into: channel)
        let first = Self.body(30_000, seed: 3), second = Self.body(30_000, seed: 4)
        XCTAssertEqual(first.withUnsafeBytes { state.receiveBody($0) }, first.count)
        XCTAssertTrue(receiver.flushPending(state, handle: handle))
        var kept = try await Self.take(channel)
        kept[0] ^= 0xFF
        kept.append(contentsOf: [1, 2, 3])
        XCTAssertEqual(second.withUnsafeBytes { state.receiveBody($0) }, second.count)
        XCTAssertTrue(receiver.flushPending(state, handle: handle))
        let next = try await channel.next()
        XCTAssertEqual(next, second)
        XCTAssertEqual(kept.dropFirst().prefix(first.count - 1), first.dropFirst())
        XCTAssertEqual(kept.suffix(3), Data([1, 2, 3]))
        state.end()
    }

    /// The pieces behave as plain `Data` gathered chunk by chunk would: chunks of every size from
    /// 1 byte to libcurl's largest, the buffer filling and pausing the transfer (libcurl then
    /// hands the refused chunk again, whole), the reader taking some between rounds.
    func testTheReaderGetsExactlyTheBytesHandedOverAcrossPausesAndResumes() async throws {
        let channel = StreamChannel(url: "http://127.0.0.1/body", limit: 128 * 1024)
        let (handle, state, receiver) = try StreamReceiver.streaming(into: channel)
        let body = Self.body(3 << 20, seed: 5)
        var sent = 0, read = Data(), pauses = 0, step = 0
        while sent < body.count {
            step += 1
            XCTAssertLessThan(step, 100_000)
            let size = min([1, 100, 16 * 1024, 64 * 1024, 5000, 65_535][step % 6], body.count - sent)
            let taken = body[sent..<(sent + size)].withUnsafeBytes { state.receiveBody($0) }
            if taken == size { sent += size } else {
                XCTAssertEqual(taken, ccurl_writefunc_pause(), "a chunk is taken whole or refused")
                pauses += 1
            }
            guard step % 7 == 0 || taken != size else { continue }
            // The round's end, then the reader takes a few chunks and the paused transfer goes on.
            XCTAssertTrue(receiver.flushPending(state, handle: handle))
            for _ in 0..<(step % 3 + 1) where channel.bufferedBytes > 0 { read.append(try await Self.take(channel)) }
            if receiver.isPaused, channel.resume() { receiver.isPaused = false }
        }
        XCTAssertTrue(receiver.flushPending(state, handle: handle, final: true))
        while channel.bufferedBytes > 0 { read.append(try await Self.take(channel)) }
        XCTAssertGreaterThan(pauses, 10)
        XCTAssertEqual(read.count, body.count)
        XCTAssertTrue(read == body, "the bytes arrived in order, none lost or repeated")
        state.end()
    }

    /// A chunk larger than a piece (libcurl's buffer is not, but nothing here relies on it) goes
    /// as a piece of its own, taken whole or refused whole.
    func testAChunkLargerThanAPieceIsTakenWholeOrRefusedWhole() async throws {
        let channel = StreamChannel(url: "http://127.0.0.1/body", limit: 128 * 1024)
        let (handle, state, receiver) = try StreamReceiver.streaming(into: channel)
        let small = Self.body(1000, seed: 6), large = Self.body(StreamReceiver.pieceSize + 5000, seed: 7)
        XCTAssertEqual(small.withUnsafeBytes { state.receiveBody($0) }, small.count)
        XCTAssertEqual(large.withUnsafeBytes { state.receiveBody($0) }, large.count)
        XCTAssertEqual(channel.bufferedBytes, small.count + large.count, "the gathered piece went first, then the large chunk")
        XCTAssertEqual(large.withUnsafeBytes { state.receiveBody($0) }, ccurl_writefunc_pause(), "no room: refused whole")
        let taken = [try await Self.take(channel), try await Self.take(channel)]
        XCTAssertEqual(taken, [small, large])
        XCTAssertTrue(channel.resume())
        receiver.isPaused = false
        XCTAssertEqual(large.withUnsafeBytes { state.receiveBody($0) }, large.count)
        XCTAssertTrue(receiver.flushPending(state, handle: handle))
        let again = try await Self.take(channel)
        XCTAssertEqual(again, large)
        state.end()
    }
}
