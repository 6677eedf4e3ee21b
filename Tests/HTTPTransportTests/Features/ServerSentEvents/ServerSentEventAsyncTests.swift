import Foundation
import HTTPTransport
import XCTest

/// `for try await event in transport.events(request)` against the local server's `/events/*`
/// routes: the same rules as the blocking form, and prompt stops by break or cancellation.
final class ServerSentEventAsyncTests: XCTestCase {
    private let transport = HTTPTransport()

    func testEventsContinueAcrossReconnectionsWithLastEventIDUntil204() async throws {
        let key = UUID().uuidString
        let events = try await collect(stream(key, "per=2&total=6"))
        XCTAssertEqual(events, (1...6).map { ServerSentEvent(id: "\($0)", data: "event \($0)") })
        XCTAssertEqual(try sent(key).map(\.lastEventID), ["", "2", "4", "6"])
        XCTAssertEqual(Set(try sent(key).map(\.accept)), ["text/event-stream"])
        XCTAssertEqual(Set(try sent(key).map(\.cacheControl)), ["no-cache"])
    }

    func testConnectionCutMidEventReconnectsAndDropsTheIncompleteEvent() async throws {
        let key = UUID().uuidString
        let events = try await collect(stream(key, "per=2&total=6&end=cut"))
        XCTAssertEqual(events.map(\.data), (1...6).map { "event \($0)" })
        XCTAssertEqual(try sent(key).map(\.lastEventID), ["", "2", "4", "6"])
    }

    func testServerErrorAndWrongContentTypeFailWithoutReconnecting() async throws {
        for (status, type, code) in [(500, "text/event-stream", HTTPTransportError.Code.httpStatus), (200, "text/html", .badResponse)] {
            let key = UUID().uuidString
            let request = HTTPRequest(endpoint: server.http + "/events/answer?key=\(key)&status=\(status)&type=\(type)")
            var received: [ServerSentEvent] = []
            do {
                for try await event in transport.events(request) { received.append(event) }
                XCTFail("\(status) \(type) ended normally")
            } catch {
                XCTAssertEqual(error.code, code, "\(status) \(type)")
            }
            XCTAssertEqual(received, [])
            XCTAssertEqual(try sent(key).count, 1)
        }
    }

    func testNoContentEndsTheSequence() async throws {
        let key = UUID().uuidString
        let events = try await collect(HTTPRequest(endpoint: server.http + "/events/answer?key=\(key)&status=204"))
        XCTAssertEqual(events, [])
        XCTAssertEqual(try sent(key).count, 1)
    }

    func testFiveFailedReconnectsInARowEndWithTheLastError() async throws {
        let key = UUID().uuidString
        var received: [String?] = []
        do {
            for try await event in transport.events(stream(key, "per=1&total=100&fail_after=1"),
                                                    reconnection: ServerSentEventBlockingTests.quick) {
                received.append(event.id)
            }
            XCTFail("ended normally")
        } catch {
            XCTAssertEqual(error.code, .badResponse, "\(error)")
        }
        XCTAssertEqual(received, ["1"])
        XCTAssertEqual(try sent(key).count, 6)
    }

    func testAServerThatSendsRetryZeroAndClosesIsNotReconnectedAtOnceOverAndOver() async throws {
        let key = UUID().uuidString
        let transport = transport
        let request = HTTPRequest(endpoint: server.http + "/events/retry-zero?key=\(key)")
        let task = Task {
            for try await _ in transport.events(request) {}
        }
        // A window to count connections in, not a synchronisation: the default floor allows two.
        try await Task.sleep(for: .seconds(1))
        task.cancel()
        _ = await task.result
        let connections = try sent(key).count
        XCTAssertGreaterThanOrEqual(connections, 1)
        XCTAssertLessThanOrEqual(connections, 2, "the first connection and one reconnect 0.5 s (±20 %) later")
    }

    func testBreakingOutOfTheLoopStopsAtOnceAndTheTransportKeepsWorking() async throws {
        let key = UUID().uuidString
        let started = ContinuousClock.now
        var first: ServerSentEvent?
        for try await event in transport.events(HTTPRequest(endpoint: server.http + "/events/slow?key=\(key)")) {
            first = event
            break
        }
        XCTAssertEqual(first, ServerSentEvent(id: "1", data: "first"))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "the server would go on for 30 s")
        let response = try await transport.send(HTTPRequest(endpoint: server.http + "/json"))
        XCTAssertNotNil(response.body)
    }

    func testCancellingTheTaskWhileReadingThrowsCancelledAtOnce() async throws {
        let key = UUID().uuidString
        let request = HTTPRequest(endpoint: server.http + "/events/slow?key=\(key)")
        try await expectCancelledPromptly(request, cancelAfterEvents: 1)
    }

    func testCancellingTheTaskWhileWaitingToReconnectThrowsCancelledAtOnce() async throws {
        let key = UUID().uuidString
        try await expectCancelledPromptly(stream(key, "per=1&total=10&retry=20000"), cancelAfterEvents: 1)
        XCTAssertEqual(try sent(key).count, 1, "the reconnection 20 s later never happened")
    }

    func testTheElementTypeIsVisibleToCallers() {
        let sequence: ServerSentEventSequence = transport.events(HTTPRequest(endpoint: server.http + "/events/slow"))
        func element<S: AsyncSequence>(of _: S) -> S.Element.Type { S.Element.self }
        XCTAssertTrue(element(of: sequence) == ServerSentEvent.self)
    }

    func testAReaderOnAnActorGetsTheEventsAcrossReconnections() async throws {
        let key = UUID().uuidString
        let reader = EventReader()
        // (`for try await` on the actor calls the iterator's `next(isolation:)`, reading in place.)
        let events = try await reader.read(transport.events(stream(key, "per=2&total=6"), reconnection: ServerSentEventBlockingTests.quick))
        XCTAssertEqual(events, (1...6).map { ServerSentEvent(id: "\($0)", data: "event \($0)") })
        XCTAssertEqual(try sent(key).map(\.lastEventID), ["", "2", "4", "6"])
    }

    private actor EventReader {
        private var seen: [ServerSentEvent] = []

        func read(_ events: ServerSentEventSequence) async throws -> [ServerSentEvent] {
            for try await event in events {
                assertIsolated()
                seen.append(event)
            }
            return seen
        }
    }

    // MARK: Helpers

    private func stream(_ key: String, _ query: String) -> HTTPRequest {
        HTTPRequest(endpoint: server.http + "/events/stream?key=\(key)&\(query)")
    }

    private func collect(_ request: HTTPRequest) async throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for try await event in transport.events(request, reconnection: ServerSentEventBlockingTests.quick) { events.append(event) }
        return events
    }

    /// Reads `request` in a task, cancels the task once `cancelAfterEvents` events arrived, and
    /// expects `.cancelled` within a second.
    private func expectCancelledPromptly(_ request: HTTPRequest, cancelAfterEvents count: Int) async throws {
        let arrived = AsyncStream<Void>.makeStream()
        let transport = transport
        let task = Task { () -> HTTPTransportError? in
            var seen = 0
            do {
                for try await _ in transport.events(request) {
                    seen += 1
                    if seen == count { arrived.continuation.yield() }
                }
                return nil
            } catch {
                return error as? HTTPTransportError
            }
        }
        for await _ in arrived.stream { break }
        let cancelled = ContinuousClock.now
        task.cancel()
        let error = await task.value
        XCTAssertEqual(error?.code, .cancelled, "\(String(describing: error))")
        XCTAssertLessThan(ContinuousClock.now - cancelled, .seconds(5))
    }
}
