@testable import HTTPTransport
import XCTest

/// The hand-off between a paused transfer and its stream's reader, from two threads and no server:
/// the transfer side runs as the session's loop runs a stream (its write callback, the hand-over at
/// a round's end, the look whether a paused transfer may go on, the sleep until woken).
final class StreamPauseHandoffTests: XCTestCase {
    func testAPausedTransferIsWokenWheneverItsReaderMakesRoomWhateverTheInterleaving() async {
        let piece = Data(repeating: 7, count: 1024)
        let pieces = 30_000
        let channel = StreamChannel(url: "http://127.0.0.1/", limit: 4 * piece.count)
        let wakes = DispatchSemaphore(value: 0)
        channel.setWaker { wakes.signal() }
        let reader = Task { () -> Int in
            var count = 0
            while count < pieces * piece.count, let chunk = try await channel.next() { count += chunk.count }
            return count
        }
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<(lost: Int, pauses: Int), Never>) in
            Thread { continuation.resume(returning: Self.runTransfer(channel, piece: piece, pieces: pieces, wakes: wakes)) }.start()
        }
        XCTAssertEqual(outcome.lost, 0, "the transfer slept paused while the buffer had room and no wake-up was on its way")
        XCTAssertGreaterThan(outcome.pauses, 1000)
        if outcome.lost > 0 { channel.cancel() }
        let read = try? await reader.value
        XCTAssertEqual(read, outcome.lost == 0 ? pieces * piece.count : nil)
    }

    /// The loop's side of one stream (see `StreamReceiver.deliver`, `flushPending` and
    /// `CancellableTransfer.drive`). Returns the sleeps that ended without a wake-up while the
    /// buffer had room (it stops at the first), and how often the transfer paused.
    private static func runTransfer(_ channel: StreamChannel, piece: Data, pieces: Int,
                                    wakes: DispatchSemaphore) -> (lost: Int, pauses: Int) {
        var produced = 0, pauses = 0
        var pending: Data?, held: Data?
        var paused = false
        while produced < pieces || pending != nil || held != nil {
            // A round's write callback: what it gathered goes first; a refusal pauses the transfer
            // and libcurl keeps the new piece.
            if !paused, let chunk = held ?? (produced < pieces ? piece : nil) {
                if held == nil { produced += 1 }
                held = nil
                if let gathered = pending, channel.receive(gathered, evenIfFull: false) == .pause {
                    (paused, held, pauses) = (true, chunk, pauses + 1)
                } else {
                    pending = chunk
                }
            }
            // The round's end: what was gathered goes to the reader, paused or not, and the reader
            // is woken for it (`StreamReceiver.drive`: a chunk alone wakes it only once half the
            // buffer waits).
            if let gathered = pending {
                if channel.receive(gathered, evenIfFull: false) == .more { pending = nil } else if !paused {
                    (paused, pauses) = (true, pauses + 1)
                }
            }
            channel.handedOver()
            if paused, channel.resume() { paused = false }
            // The poll: a paused transfer sleeps until its reader wakes it.
            if paused, wakes.wait(timeout: .now() + .seconds(1)) == .timedOut, channel.bufferedBytes < 2 * piece.count {
                return (1, pauses)
            }
        }
        return (0, pauses)
    }
}
