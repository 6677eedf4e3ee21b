import Foundation
import HTTPTransport
import XCTest

/// DESIGN §1d as users write it (the names are a contract): streaming, fan-out, the concurrency
/// and resilience settings and recordings compile as written, keep their values, and work
/// against the local test server.
final class StreamingAndResilienceContractTests: XCTestCase {
    func testTheStreamingCallsWorkAsWritten() async throws {
        let transport = HTTPTransport()
        let request = HTTPRequest(endpoint: server.http + "/ndjson?count=3")
        let stream = try await transport.stream(request)
        XCTAssertEqual(stream.httpStatus, .ok)
        _ = stream.header(named: "Content-Type") ?? ""
        var lines: [String] = []
        for try await line in stream.lines { lines.append(line) }
        XCTAssertEqual(lines.count, 3)

        let chunks = Recorder<Int>()
        let result = transport.send(request: request.streaming { chunk in chunks.add(chunk.count); return true })
        XCTAssertNil(result.value?.body)
        XCTAssertFalse(chunks.values.isEmpty)
    }

    func testFanOutGivesResultsInOrder() {
        let transport = HTTPTransport()
        let requests = (0..<3).map { HTTPRequest(endpoint: server.http + "/anything?n=\($0)") }
        let results: [HTTPTransport.Result] = transport.send(requests: requests)
        XCTAssertEqual(results.count, 3)
        XCTAssertTrue(results.allSatisfy(\.isSuccess))
    }

    func testTheConcurrencyAndResilienceSettingsAreKeptAsWritten() {
        var configuration = Session.Configuration()
        XCTAssertEqual(configuration.maxConnectionsPerHost, 0)
        XCTAssertEqual(configuration.maxConcurrentTransfers, 1_000)
        XCTAssertTrue(configuration.multiplexing)
        XCTAssertNil(configuration.hostLimits)
        XCTAssertNil(configuration.circuitBreaker)
        configuration.maxConnectionsPerHost = 16
        configuration.maxConcurrentTransfers = 1_000
        configuration.multiplexing = true
        configuration.hostLimits = HostLimits(requestsPerSecond: 20, burst: 5)
        configuration.circuitBreaker = CircuitBreaker(failureThreshold: 5, openDuration: 30)
        let retrier = RetryPolicy(maxAttempts: 3, budget: RetryBudget(ratio: 0.1, minimumPerSecond: 5),
                                  idempotencyKeyHeader: "Idempotency-Key")
        XCTAssertEqual(configuration.maxConnectionsPerHost, 16)
        XCTAssertEqual(configuration.hostLimits, HostLimits(requestsPerSecond: 20, burst: 5))
        XCTAssertEqual(configuration.circuitBreaker, CircuitBreaker(failureThreshold: 5, openDuration: 30))
        XCTAssertEqual(HTTPTransportError.Code.circuitOpen.rawValue, 18)
        let transport = HTTPTransport(session: Session(configuration: configuration), retrier: retrier)
        XCTAssertTrue(transport.send(request: HTTPRequest(endpoint: server.http + "/get")).isSuccess)
    }

    func testARecordingReplaysWithoutANetwork() throws {
        let directory = try temporaryDirectory("contract-har")
        let harFile = directory.appendingPathComponent("flow.har")
        let recorder = HTTPArchiveRecorder()
        let recording = HTTPTransport(responseInterceptors: [ClarifyErrorInterceptor(), recorder])
        let request = HTTPRequest(endpoint: server.http + "/anything?n=1")
        let recorded = try recording.send(request: request).get()
        XCTAssertEqual(recorder.entryCount, 1)
        try recorder.write(to: harFile)
        let replaying = HTTPTransport(session: Session(engine: try HTTPArchiveEngine(contentsOf: harFile)))
        let replayed = try replaying.send(request: request).get()
        XCTAssertEqual(replayed.body, recorded.body)
    }

    func testServerSentEventsAreReadAsWritten() async throws {
        let transport = HTTPTransport()
        let event = ServerSentEvent(id: "1", event: "message", data: "x", retry: nil)
        XCTAssertEqual(event.event, "message")
        let request = HTTPRequest(endpoint: server.http + "/events/answer?status=204")
        for try await event in transport.events(request) { XCTFail("no event expected: \(event)") }
        try transport.events(request: request) { _ in true }
    }
}
