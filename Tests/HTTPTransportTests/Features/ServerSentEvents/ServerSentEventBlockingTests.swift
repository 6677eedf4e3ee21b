import Foundation
import HTTPTransport
import XCTest

/// `transport.events(request:onEvent:)` against the local server's `/events/*` routes: one
/// sequence of events across reconnections, the headers each connection sends, and the answers
/// that end it.
final class ServerSentEventBlockingTests: XCTestCase {
    private let transport = HTTPTransport()
    /// Waits of a few hundredths of a second (the server's `retry` is 50 ms), so that tests of
    /// what is sent again do not wait the default floor of 0.5 s, doubled.
    static let quick = ServerSentEventReconnectionPolicy(minimumDelay: 0.01)

    func testEventsContinueAcrossCleanReconnectionsWithLastEventIDUntil204() throws {
        let key = UUID().uuidString
        let events = try collect(stream(key, "per=2&total=6"))
        XCTAssertEqual(events, (1...6).map { ServerSentEvent(id: "\($0)", data: "event \($0)") })
        XCTAssertEqual(try sent(key).map(\.lastEventID), ["", "2", "4", "6"], "the fourth connection gets 204")
    }

    func testConnectionCutMidEventReconnectsAndDropsTheIncompleteEvent() throws {
        let key = UUID().uuidString
        let events = try collect(stream(key, "per=2&total=6&end=cut"))
        XCTAssertEqual(events.map(\.data), (1...6).map { "event \($0)" })
        XCTAssertEqual(try sent(key).map(\.lastEventID), ["", "2", "4", "6"], "the cut event's id 999 is never sent")
    }

    func testEveryConnectionAsksForAnUncachedEventStream() throws {
        let key = UUID().uuidString
        _ = try collect(stream(key, "per=3&total=3"))
        let requests = try sent(key)
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(Set(requests.map(\.accept)), ["text/event-stream"])
        XCTAssertEqual(Set(requests.map(\.cacheControl)), ["no-cache"])
    }

    func testLastEventIDOfTheCallersRequestResumesTheStream() throws {
        let key = UUID().uuidString
        let events = try collect(stream(key, "per=5&total=6").with(header: "Last-Event-ID", value: "4"))
        XCTAssertEqual(events.map(\.id), ["5", "6"])
    }

    func testNoContentEndsTheEventsNormally() throws {
        let key = UUID().uuidString
        XCTAssertEqual(try collect(answer(key, status: 204)), [])
        XCTAssertEqual(try sent(key).count, 1)
    }

    func testServerErrorFailsWithoutReconnecting() throws {
        let key = UUID().uuidString
        XCTAssertEqual(failure(answer(key, status: 500))?.code, .httpStatus)
        XCTAssertEqual(try sent(key).count, 1)
    }

    func testWrongContentTypeFailsWithoutReconnectingOrDecodingTheBody() throws {
        let key = UUID().uuidString
        let received = Protected<[ServerSentEvent]>([])
        var thrown: HTTPTransportError?
        do {
            try transport.events(request: answer(key, status: 200, type: "text/plain")) { event in
                received.withLock { $0.append(event) }
                return true
            }
        } catch { thrown = error }
        XCTAssertEqual(thrown?.code, .badResponse)
        XCTAssertTrue(thrown?.message.contains("text/plain") == true, thrown?.message ?? "")
        XCTAssertEqual(received.value, [], "the body holds `data: x` but is no event stream")
        XCTAssertEqual(try sent(key).count, 1)
    }

    func testAServerThatSendsRetryZeroAndClosesIsReconnectedWithAFloorAndBackOffThenGivenUp() throws {
        let key = UUID().uuidString
        var thrown: HTTPTransportError?
        do {
            try transport.events(request: HTTPRequest(endpoint: server.http + "/events/retry-zero?key=\(key)"), onEvent: { _ in true },
                                 reconnection: .init(maxConsecutiveFailures: 2))
        } catch { thrown = error }
        XCTAssertEqual(thrown?.code, .badResponse)
        XCTAssertTrue(thrown?.message.contains("2 times in a row without an event") == true, thrown?.message ?? "")
        let times = try sent(key).compactMap(\.time)
        XCTAssertEqual(times.count, 3, "the first connection and two reconnects without an event")
        guard times.count == 3 else { return }
        XCTAssertGreaterThanOrEqual(times[1] - times[0], 0.4, "at least the floor of 0.5 s, less 20 % jitter")
        XCTAssertGreaterThanOrEqual(times[2] - times[1], 0.8, "doubled: the reconnect before brought no event")
    }

    func testCancellingWhileWaitingToReconnectThrowsCancelledAtOnce() throws {
        let key = UUID().uuidString
        let cancellation = CancellationHandle()
        let started = ContinuousClock.now
        var thrown: HTTPTransportError?
        do {
            try transport.events(request: stream(key, "per=1&total=10&retry=20000"), control: TransferControl(cancellation: cancellation)) { _ in
                cancellation.cancel()  // (the next wait is 20 s)
                return true
            }
        } catch { thrown = error }
        XCTAssertEqual(thrown?.code, .cancelled, "\(String(describing: thrown))")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        XCTAssertEqual(try sent(key).count, 1)
    }

    func testFiveFailedReconnectsInARowEndWithTheLastError() throws {
        let key = UUID().uuidString
        let received = Protected<[ServerSentEvent]>([])
        var thrown: HTTPTransportError?
        do {
            try transport.events(request: stream(key, "per=1&total=100&fail_after=1"), onEvent: { event in
                received.withLock { $0.append(event) }
                return true
            }, reconnection: Self.quick)
        } catch { thrown = error }
        XCTAssertEqual(thrown?.code, .badResponse, "an empty reply (curl 52): \(String(describing: thrown))")
        XCTAssertEqual(received.value.map(\.id), ["1"])
        XCTAssertEqual(try sent(key).count, 6, "the first connection and five failed reconnects")
    }

    func testAnIdTooLongToSendBackIsIgnoredAndTheStreamGoesOn() throws {
        let key = UUID().uuidString
        let events = try collect(HTTPRequest(endpoint: server.http + "/events/hostile-id?key=\(key)&kind=long"))
        XCTAssertEqual(events, [ServerSentEvent(id: "1", data: "a", retry: 1), ServerSentEvent(id: "1", data: "b")])
        XCTAssertEqual(try sent(key).map(\.lastEventID), ["", "1"], "the 8 MB id is not sent back")
    }

    func testAnIdHoldingAControlCharacterIsNeverSentBackAsLastEventID() throws {
        let key = UUID().uuidString
        let events = try collect(HTTPRequest(endpoint: server.http + "/events/hostile-id?key=\(key)&kind=control"))
        XCTAssertEqual(events.map(\.id), ["1", "1"])
        let requests = try sent(key)
        XCTAssertEqual(requests.map(\.lastEventID), ["", "1"])
        XCTAssertEqual(requests.map(\.injected), [false, false], "no header injected through a vertical tab")
    }

    func testFirstConnectionThatCannotBeMadeFailsAtOnce() {
        let request = HTTPRequest(endpoint: "http://127.0.0.1:\(TestServer.closedPort())/events")
        let started = ContinuousClock.now
        XCTAssertEqual(failure(request)?.code, .cannotConnect)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2), "no reconnection after 3 s")
    }

    func testHandlerReturningFalseStopsAtOnceAndTheTransportKeepsWorking() throws {
        let key = UUID().uuidString
        let started = ContinuousClock.now
        let received = Protected<[ServerSentEvent]>([])
        try transport.events(request: HTTPRequest(endpoint: server.http + "/events/slow?key=\(key)")) { event in
            received.withLock { $0.append(event) }
            return false
        }
        XCTAssertEqual(received.value, [ServerSentEvent(id: "1", data: "first")])
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "the server would go on for 30 s")
        XCTAssertEqual(try sent(key).count, 1)
        XCTAssertNotNil(try sendOK(transport, HTTPRequest(endpoint: server.http + "/json")).body)
    }

    func testEventsThroughAStubEngineReconnectWithLastEventID() throws {
        let seen = Recorder<String>()
        let stub = StubEngine { request in
            seen.add(request.headers.first("Last-Event-ID") ?? "")
            guard request.headers.first("Last-Event-ID") == nil else { return RawResponse(request: request, statusCode: .noContent) }
            return RawResponse(request: request, statusCode: .ok, headers: ["Content-Type": "text/event-stream"],
                               data: Data("retry: 1\nid: a\nevent: greeting\ndata: hello\n\n".utf8))
        }
        let received = Protected<[ServerSentEvent]>([])
        try HTTPTransport(session: Session(engine: stub)).events(request: HTTPRequest(endpoint: "http://stub.invalid/events")) { event in
            received.withLock { $0.append(event) }
            return true
        }
        XCTAssertEqual(received.value, [ServerSentEvent(id: "a", event: "greeting", data: "hello", retry: 1)])
        XCTAssertEqual(seen.values, ["", "a"])
    }

    func testAnEmptyIdDropsTheCallersLastEventIDFromReconnections() throws {
        let seen = Recorder<String?>()
        let stub = StubEngine { request in
            seen.add(request.headers.first("Last-Event-ID"))
            guard seen.values.count == 1 else { return RawResponse(request: request, statusCode: .noContent) }
            return RawResponse(request: request, statusCode: .ok, headers: ["Content-Type": "text/event-stream"],
                               data: Data("retry: 1\nid\ndata: a\n\n".utf8))
        }
        let request = HTTPRequest(endpoint: "http://stub.invalid/events").with(header: "last-event-id", value: "7")
        try HTTPTransport(session: Session(engine: stub)).events(request: request) { _ in true }
        XCTAssertEqual(seen.values, ["7", nil])
    }

    func testHandlerReturningFalseGetsNoFurtherEventOfTheSameChunk() throws {
        let stub = StubEngine { request in
            RawResponse(request: request, statusCode: .ok, headers: ["Content-Type": "text/event-stream"],
                        data: Data("data: 1\n\ndata: 2\n\ndata: 3\n\n".utf8))
        }
        let received = Protected<[String]>([])
        try HTTPTransport(session: Session(engine: stub)).events(request: HTTPRequest(endpoint: "http://stub.invalid/")) { event in
            received.withLock { $0.append(event.data) }
            return event.data != "2"
        }
        XCTAssertEqual(received.value, ["1", "2"])
    }

    // MARK: Helpers

    private func stream(_ key: String, _ query: String) -> HTTPRequest {
        HTTPRequest(endpoint: server.http + "/events/stream?key=\(key)&\(query)")
    }

    private func answer(_ key: String, status: Int, type: String = "text/event-stream") -> HTTPRequest {
        HTTPRequest(endpoint: server.http + "/events/answer?key=\(key)&status=\(status)&type=\(type)")
    }

    private func collect(_ request: HTTPRequest, file: StaticString = #filePath, line: UInt = #line) throws -> [ServerSentEvent] {
        let received = Protected<[ServerSentEvent]>([])
        try transport.events(request: request, onEvent: { event in
            received.withLock { $0.append(event) }
            return true
        }, reconnection: Self.quick)
        return received.value
    }

    private func failure(_ request: HTTPRequest) -> HTTPTransportError? {
        do {
            try transport.events(request: request) { _ in true }
            return nil
        } catch {
            return error
        }
    }
}

/// What the server's `/events/log` recorded of each request under a key.
struct EventStreamRequestLog: Decodable {
    var lastEventID: String
    var accept: String
    var cacheControl: String
    /// Whether the request carried an `X-Injected` header.
    var injected: Bool?
    /// When it arrived, in the server's monotonic seconds.
    var time: Double?
}

extension XCTestCase {
    /// The requests the server's `/events/*` routes saw under `key`, in order.
    func sent(_ key: String) throws -> [EventStreamRequestLog] {
        struct Log: Decodable { var requests: [EventStreamRequestLog] }
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/events/log?key=\(key)"))
        return try JSONDecoder().decode(Log.self, from: XCTUnwrap(response.body)).requests
    }
}
