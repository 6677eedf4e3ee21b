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

    func testADeclaredLengthReservesOnlyAPartAndOnlyForTheMemorySink() {
        let memory = MemoryBody(limit: 1 << 30)
        memory.expect(length: 100_000_000)
        XCTAssertEqual(Int64(memory.capacity), TransferState.declaredLengthReservation)
        let capped = MemoryBody(limit: 10)
        capped.expect(length: 11)
        XCTAssertEqual(capped.capacity, 0)
    }
}
