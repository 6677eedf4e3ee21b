import Foundation
@testable import HTTPTransport
import XCTest

/// The body-sink seam: the transfer hands every chunk to its sink and turns its answer into
/// libcurl's (taken, pause, abort); the memory sink's limits are its own.
final class BodySinkTests: XCTestCase {
    private func state(limit: Int64 = 1_000) -> TransferState {
        TransferState(maxResponseSize: limit, control: TransferControl(), requestURL: "http://127.0.0.1/x")
    }

    private func feed(_ state: TransferState, _ count: Int) -> Int {
        Data(repeating: 0x61, count: count).withUnsafeBytes { state.receiveBody($0) }
    }

    func testTheMemorySinkTakesBytesWithinTheSessionsLimit() {
        let state = state()
        XCTAssertEqual(feed(state, 600), 600)
        XCTAssertEqual(feed(state, 400), 400)
        XCTAssertNil(state.storedError)
        XCTAssertEqual(state.takeBody().count, 1_000)
    }

    func testPastTheLimitTheMemorySinkAbortsWithResponseTooLarge() {
        let state = state()
        XCTAssertEqual(feed(state, 999), 999)
        XCTAssertEqual(feed(state, 2), 0, "libcurl aborts on any count but the chunk's")
        XCTAssertEqual(state.storedError?.code, .responseTooLarge)
        XCTAssertEqual(feed(state, 1), 0, "nothing is taken after a failure")
    }

    func testAKeptBodyIsCutShortOnPurposeWithoutAnError() {
        let state = state()
        state.memory.cut = 100
        XCTAssertEqual(feed(state, 60), 60)
        XCTAssertEqual(feed(state, 60), 0)
        XCTAssertTrue(state.memory.cutShort)
        XCTAssertNil(state.storedError)
        XCTAssertEqual(state.takeBody().count, 100)
    }

    /// A small body is copied out of a buffer the sink keeps for the next body, a large one's
    /// buffer is handed over (`MemoryBody.take`): either way the body comes out whole, owns its
    /// bytes (the next body in the kept buffer does not change it), and nothing of one body
    /// reaches the next; the sink keeps at most `keptCapacity` between transfers.
    func testEveryBodyComesOutWholeWhetherCopiedOrHandedOver() {
        let state = state(limit: 1 << 30)
        let kept = MemoryBody.keptCapacity
        var earlier: [(Data, Data)] = []
        for (round, count) in [100, kept, kept + 1, 40, 300_000, 7, 0, 5_000].enumerated() {
            state.begin(control: TransferControl(), requestURL: "http://127.0.0.1/\(round)", maxResponseSize: 1 << 30)
            let bytes = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ round) })
            for start in stride(from: 0, to: count, by: 16_384) {
                let chunk = bytes[start..<min(count, start + 16_384)]
                XCTAssertEqual(chunk.withUnsafeBytes { state.receiveBody($0) }, chunk.count)
            }
            let body = state.takeBody()
            XCTAssertEqual(body, bytes, "body of \(count) bytes")
            XCTAssertFalse(state.hasBody, "taken: the sink is empty")
            earlier.append((body, bytes))
            state.end()
            XCTAssertLessThanOrEqual(state.bodyCapacity, kept, "after a body of \(count) bytes")
        }
        for (body, bytes) in earlier { XCTAssertEqual(body, bytes, "a body stays as it was taken") }
        // A body nobody took is dropped: the next transfer starts empty.
        state.begin(control: TransferControl(), requestURL: "http://127.0.0.1/x", maxResponseSize: 1 << 30)
        XCTAssertEqual(feed(state, 10), 10)
        state.end()
        state.begin(control: TransferControl(), requestURL: "http://127.0.0.1/y", maxResponseSize: 1 << 30)
        XCTAssertFalse(state.hasBody)
        XCTAssertEqual(state.takeBody(), Data())
    }

    func testADeclaredLengthReservesOnlyAPartAndOnlyForTheMemorySink() {
        let memory = MemoryBody(limit: 1 << 30)
        memory.expect(length: 100_000_000)
        XCTAssertEqual(Int64(memory.capacity), TransferState.declaredLengthReservation)
        let capped = MemoryBody(limit: 10)
        capped.expect(length: 11)
        XCTAssertEqual(capped.capacity, 0)
    }
}
