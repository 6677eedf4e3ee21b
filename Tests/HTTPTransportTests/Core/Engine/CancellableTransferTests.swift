import Foundation
@testable import HTTPTransport
import XCTest

/// `CancellableTransfer`, the blocking driver that runs a transfer through its handle's own
/// multi handle so another thread can cut it short, as a state machine: cancelled before it
/// starts, cancelled while it runs, and finishing normally. Driven through `CurlEngine`, which
/// picks it for every transfer with a `CancellationHandle`, against the local test server.
final class CancellableTransferTests: XCTestCase {
    private func engine() -> CurlEngine {
        CurlEngine(security: .noEvaluation, configuration: Session.Configuration())
    }

    private func request(_ path: String) throws -> RawRequest {
        try HTTPRequest(endpoint: server.http + path).resolve()
    }

    private func flakyCount(key: String) throws -> Int {
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/flaky/count?key=\(key)"))
        return try XCTUnwrap(try echo(response)["count"] as? Int)
    }

    private func connectionID(_ response: RawResponse, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        XCTAssertNil(response.error, file: file, line: line)
        let body = try XCTUnwrap(response.data, file: file, line: line)
        let echo = try XCTUnwrap(try JSONSerialization.jsonObject(with: body) as? [String: Any], file: file, line: line)
        return try XCTUnwrap(echo["connection_id"] as? Int, file: file, line: line)
    }

    /// Waits until the server has received the request counted under `key` (so the transfer
    /// is waiting for the answer, its thread in the poll); bounded.
    private func waitUntilTheServerHasTheRequest(key: String) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        let count = HTTPRequest(endpoint: server.http + "/hoptests/slow-redirect-count?key=\(key)")
        let transport = HTTPTransport()
        while ContinuousClock.now < deadline {
            if try echo(try sendOK(transport, count))["count"] as? Int == 1 { return }
        }
        XCTFail("the request did not reach the server")
    }

    func testATransferCancelledBeforeItStartsEndsCancelledAndSendsNothing() throws {
        let key = UUID().uuidString
        let cancellation = CancellationHandle()
        cancellation.cancel()
        let engine = engine()
        let response = engine.execute(try request("/flaky?key=\(key)&fail=0"),
                                      control: TransferControl(cancellation: cancellation))
        XCTAssertEqual(response.error?.code, .cancelled)
        XCTAssertEqual(try flakyCount(key: key), 0, "the request reached the server")
        XCTAssertEqual(engine.idleHandleCount, 0, "only a transfer that succeeded puts its handle back")
    }

    func testATransferCancelledWhileItRunsReturnsPromptlyAndTheNextTransferWorks() throws {
        let engine = engine()
        // A kept-alive connection for the slow request: no connect timers of libcurl's left to
        // wake the poll, only the cancel.
        XCTAssertEqual(engine.execute(try request("/get"), control: TransferControl(cancellation: CancellationHandle())).statusCode,
                       .ok)
        let key = UUID().uuidString
        let cancellation = CancellationHandle()
        let outcome = Protected<RawResponse?>(nil)
        let finished = DispatchSemaphore(value: 0)
        // The server counts the request, then keeps it 5 s before it answers.
        let slow = try request("/hoptests/slow-redirect/1?delay=5&key=\(key)")
        let thread = Thread {
            outcome.value = engine.execute(slow, control: TransferControl(cancellation: cancellation))
            finished.signal()
        }
        thread.start()
        try waitUntilTheServerHasTheRequest(key: key)
        let cancelledAt = ContinuousClock.now
        cancellation.cancel()
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        let latency = ContinuousClock.now - cancelledAt
        XCTAssertEqual(outcome.value?.error?.code, .cancelled)
        // The cancel wakes the poll, which otherwise sleeps up to a second between checks.
        XCTAssertLessThan(latency, .milliseconds(500))
        // The cut transfer's handle is dropped; the next cancellable transfer runs on its own.
        let next = engine.execute(try request("/get"), control: TransferControl(cancellation: CancellationHandle()))
        XCTAssertNil(next.error)
        XCTAssertEqual(next.statusCode, .ok)
    }

    func testATransferThatFinishesLeavesItsHandleReadyForTheNextOnItsConnection() throws {
        let engine = engine()
        let cancellation = CancellationHandle()
        let first = engine.execute(try request("/get"), control: TransferControl(cancellation: cancellation))
        XCTAssertEqual(first.statusCode, .ok)
        XCTAssertEqual(engine.idleHandleCount, 1)
        // The pooled handle was taken out of its multi handle: the next transfer adds it again,
        // and reuses the connection the first one left in that multi handle's cache.
        let second = engine.execute(try request("/get"), control: TransferControl(cancellation: cancellation))
        XCTAssertEqual(try connectionID(second), try connectionID(first))
        XCTAssertTrue(second.metrics.connectionReused)
        XCTAssertEqual(engine.idleHandleCount, 1)
        // Cancelling once the transfers are over reaches none of them: only a new send sees it.
        cancellation.cancel()
        XCTAssertEqual(engine.execute(try request("/get"), control: TransferControl(cancellation: cancellation)).error?.code,
                       .cancelled)
    }
}
