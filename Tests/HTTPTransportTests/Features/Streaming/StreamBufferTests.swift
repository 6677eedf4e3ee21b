@testable import HTTPTransport
import XCTest

/// The rules of a stream's bounded buffer and of its line splitting, without a transfer.
final class StreamBufferTests: XCTestCase {
    private let chunk = Data(repeating: 1, count: 16 * 1024)

    func testAFullBufferPausesTheTransferAndHoldsAtMostItsLimit() {
        var buffer = StreamBuffer(limit: 64 * 1024)
        var offered = 0
        while buffer.offer(chunk) == .more { offered += 1 }
        XCTAssertEqual(offered, 4)
        XCTAssertTrue(buffer.isPaused)
        XCTAssertLessThanOrEqual(buffer.bufferedBytes, buffer.limit)
        // A paused transfer offers the same chunk again: still refused, nothing grows.
        XCTAssertEqual(buffer.offer(chunk), .pause)
        XCTAssertEqual(buffer.bufferedBytes, 64 * 1024)
    }

    func testAChunkThatWouldPassTheLimitWaitsButAnEmptyBufferTakesAnyChunk() {
        var buffer = StreamBuffer(limit: 40 * 1024)
        XCTAssertEqual(buffer.offer(chunk), .more)
        XCTAssertEqual(buffer.offer(chunk), .more)
        XCTAssertEqual(buffer.offer(chunk), .pause)  // 48 KiB would pass 40 KiB
        var huge = StreamBuffer(limit: 1024)
        XCTAssertEqual(huge.offer(chunk), .more)     // else it could never be taken
    }

    /// A reader waiting for chunks is woken from within the transfer's round once half the
    /// buffer waits (fewer, fuller wake-ups); less waits for the round's end.
    func testAWaitingReaderIsWokenMidRoundOnceHalfTheBufferWaits() {
        var buffer = StreamBuffer(limit: 64 * 1024)
        XCTAssertEqual(buffer.offer(chunk), .more)
        XCTAssertFalse(buffer.wakesConsumer)
        XCTAssertEqual(buffer.offer(chunk), .more)
        XCTAssertTrue(buffer.wakesConsumer)
    }

    func testTheTransferResumesOnceTheReaderTookTheBufferBelowHalf() {
        var buffer = StreamBuffer(limit: 64 * 1024)
        while buffer.offer(chunk) == .more {}
        XCTAssertEqual(buffer.take(), .chunk(chunk, resumes: false))
        XCTAssertEqual(buffer.take(), .chunk(chunk, resumes: false))
        XCTAssertFalse(buffer.wantsMore)  // half full: not yet
        XCTAssertEqual(buffer.take(), .chunk(chunk, resumes: true))
        XCTAssertTrue(buffer.wantsMore)
        XCTAssertEqual(buffer.take(), .chunk(chunk, resumes: false))  // woken already
        XCTAssertTrue(buffer.resume())
        XCTAssertFalse(buffer.isPaused)
    }

    func testAPausedTransferIsWokenAgainWhenWhatItHandedOverRefilledTheBufferBeforeItLooked() {
        var buffer = StreamBuffer(limit: 64 * 1024)
        while buffer.offer(chunk) == .more {}
        _ = buffer.take()
        _ = buffer.take()
        XCTAssertEqual(buffer.take(), .chunk(chunk, resumes: true))  // 16 KiB left: wakes
        // Before its look the paused transfer hands over what it had gathered: past half again.
        XCTAssertEqual(buffer.offer(chunk), .more)
        XCTAssertEqual(buffer.offer(chunk), .more)
        XCTAssertFalse(buffer.resume())
        XCTAssertTrue(buffer.isPaused)
        XCTAssertEqual(buffer.take(), .chunk(chunk, resumes: false))  // half: not yet
        XCTAssertEqual(buffer.take(), .chunk(chunk, resumes: true))   // below half: wakes again
        XCTAssertTrue(buffer.resume())
        XCTAssertFalse(buffer.isPaused)
    }

    func testAReadSlowerThanTheTransferNeverHoldsMoreThanTheLimit() {
        // A long body read one chunk per eight offered: the buffer stays bounded throughout.
        var buffer = StreamBuffer(limit: 1 << 20)
        var most = 0
        for round in 0..<10_000 {
            _ = buffer.offer(chunk)
            most = max(most, buffer.bufferedBytes, buffer.retainedBytes)
            if round % 8 == 0 { _ = buffer.take() }
        }
        XCTAssertLessThanOrEqual(most, 1 << 20)
    }

    func testAStreamThatNeverDrainsKeepsNoChunkItHandedOut() {
        // Taking and offering in turn, the buffer is never empty: what was taken must still go.
        var buffer = StreamBuffer(limit: 1 << 20)
        _ = buffer.offer(chunk)
        for _ in 0..<5_000 {
            _ = buffer.offer(chunk)
            _ = buffer.take()
            XCTAssertEqual(buffer.retainedBytes, buffer.bufferedBytes)
        }
        XCTAssertEqual(buffer.bufferedBytes, chunk.count)
    }

    func testTheReaderGetsEveryChunkBeforeTheEnd() {
        var buffer = StreamBuffer()
        _ = buffer.offer(chunk)
        buffer.finish(.finished)
        XCTAssertEqual(buffer.offer(chunk), .stop)
        XCTAssertEqual(buffer.take(), .chunk(chunk, resumes: false))
        XCTAssertEqual(buffer.take(), .end(.finished))
    }

    func testCancellingDropsWhatWaitsAndEndsWithTheError() {
        var buffer = StreamBuffer()
        _ = buffer.offer(chunk)
        let error = HTTPTransportError(code: .cancelled, message: "cancelled")
        buffer.cancel(error)
        XCTAssertEqual(buffer.bufferedBytes, 0)
        XCTAssertEqual(buffer.take(), .end(.failed(error)))
        XCTAssertEqual(buffer.offer(chunk), .stop)
    }

    // MARK: Lines

    private func lines(_ chunks: [String]) -> [String] {
        var splitter = LineSplitter()
        var lines: [String] = []
        for chunk in chunks {
            splitter.append(Data(chunk.utf8))
            while let line = splitter.nextLine() { lines.append(line) }
        }
        if let last = splitter.finish() { lines.append(last) }
        return lines
    }

    func testLinesSplitOnLFAndDropTheCRBeforeIt() {
        XCTAssertEqual(lines(["a\r\nb\nc\r\n"]), ["a", "b", "c"])
    }

    func testTheLastLineComesWithoutLFAndNoEmptyLineFollowsAFinalLF() {
        XCTAssertEqual(lines(["a\nb"]), ["a", "b"])
        XCTAssertEqual(lines(["a\n"]), ["a"])
        XCTAssertEqual(lines([""]), [])
        XCTAssertEqual(lines(["\n"]), [""])
    }

    func testEmptyLinesInsideTheBodyAreKept() {
        XCTAssertEqual(lines(["a\n\n\r\nb\n"]), ["a", "", "", "b"])
    }

    func testLinesAndCRLFSplitAcrossChunks() {
        XCTAssertEqual(lines(["ab", "c\r", "\nd", "e\n", "f"]), ["abc", "de", "f"])
    }

    func testUTF8SplitAcrossChunksDecodesWhole() {
        let bytes = Array("é😀\n".utf8)
        var splitter = LineSplitter()
        for byte in bytes { splitter.append(Data([byte])) }
        XCTAssertEqual(splitter.nextLine(), "é😀")
    }
}
