import CCurl
import Foundation
@testable import HTTPTransport
import XCTest

/// A stream on the transfer loop with a scripted multi handle: the body arrives through the
/// handle's real write callback as fast as the loop takes it, and the reader takes it from the
/// real `StreamChannel`, so the transfer pauses and resumes hundreds of times. The poll waits
/// only for wake-ups: a resume lost between the reader making room and the loop looking shows
/// as a stall (issue #34's streams that sat paused for seconds).
final class TransferLoopStreamTests: XCTestCase {
    /// libcurl's side of one response, run on the loop's thread: the head, then pieces of the
    /// body through the write callback, a refused piece held until the loop unpauses.
    private final class ScriptedResponse: @unchecked Sendable {
        let handle: EasyHandle
        let piece = Data(repeating: 7, count: 16 * 1024)
        var left: Int
        var headSent = false
        var holding = false
        var ended = false

        init(handle: EasyHandle, pieces: Int) {
            self.handle = handle
            left = pieces
        }

        /// A round of `curl_multi_perform`: a few pieces, until one is refused (paused).
        func round(_ multi: ScriptedMulti) {
            guard !ended else { return }
            if !headSent {
                headSent = true
                for line in ["HTTP/1.1 200 OK\r\n", "\r\n"] {
                    var bytes = Array(line.utf8)
                    _ = bytes.withUnsafeMutableBytes { handle.deliverHeaderLine($0) }
                }
            }
            for _ in 0..<3 where !holding && left > 0 { deliver() }
            if left == 0, !holding {
                ended = true
                multi.finish(handle.curl)
            } else if !holding {
                multi.wake()  // (the socket is still readable)
            }
        }

        /// `curl_easy_pause(CONT)`: the held piece goes to the write callback at once.
        func unpaused() {
            guard holding else { return }
            holding = false
            deliver()
        }

        private func deliver() {
            let written = piece.withUnsafeBytes { bytes in
                ccurl_write_callback(UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: CChar.self)),
                                     1, bytes.count, handle.transferSlot)
            }
            if written == ccurl_writefunc_pause() {
                holding = true
            } else {
                left -= 1
            }
        }
    }

    func testAStreamThatPausesHundredsOfTimesIsAlwaysResumedWhenItsReaderMakesRoom() throws {
        let multi = ScriptedMulti(waitsOnlyForWakeUps: true, stallLimit: 30)
        let loop = TransferLoop(sessionLoopOn: multi)
        defer { loop.stop() }
        let pieces = 4_000
        let handle = try XCTUnwrap(EasyHandle())
        let url = "http://127.0.0.1:9/stream"
        let channel = StreamChannel(url: url, limit: 64 * 1024)
        handle.transferState.begin(control: TransferControl(), requestURL: url, maxResponseSize: 1 << 20)
        handle.transferState.sink = StreamReceiver(body: StreamingBody(consumer: channel), headTimeout: 30, stallTimeout: 30)
        handle.transferSlot.pointee.state = handle.transferState.opaque
        let response = ScriptedResponse(handle: handle, pieces: pieces)
        multi.setWork { [unowned multi] in response.round(multi) }
        multi.setUnpauseHook { _ in response.unpaused() }
        let transfer = LoopTransfer(handle: handle, state: handle.transferState,
                                    request: RawRequest(url: try XCTUnwrap(URL(string: url))), engine: nil)
        let total = pieces * response.piece.count
        let read = ThreadResult<Int>()
        let done = DispatchSemaphore(value: 0)
        Task {
            var count = 0
            // The first half is taken only while the transfer is paused: each take hands off a
            // resume. The rest as fast as it comes.
            while count < total {
                if count < total / 2 { await channel.awaitPause() }
                guard let chunk = try? await channel.next() else { break }
                count += chunk.count
            }
            read.set(count)
            done.signal()
        }
        let ended = DispatchSemaphore(value: 0)
        Task {
            _ = await loop.perform(transfer)
            ended.signal()
        }
        let finished = done.wait(timeout: .now() + 60) == .success
        XCTAssertTrue(finished, "the stream stalled: \(multi.counts.stalls) polls waited out their limit")
        guard finished else { return channel.cancel() }
        XCTAssertEqual(read.value, total)
        XCTAssertEqual(ended.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(transfer.code, CURLE_OK)
        XCTAssertEqual(multi.counts.stalls, 0)
        XCTAssertGreaterThan(multi.counts.unpauses, 100, "the reader never made the transfer pause")
    }
}
