import Foundation
@testable import HTTPTransport
import XCTest

/// A send waiting for one of the session's `maxConcurrentTransfers` waits at most its request's
/// time-out; a stream its reader leaves gives its place back after the stall time-out.
final class QueuedSendTimeoutTests: XCTestCase {
    private func transport(stallTimeout: TimeInterval? = nil) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.maxConcurrentTransfers = 1
        configuration.stallTimeout = stallTimeout
        return HTTPTransport(session: Session(configuration: configuration))
    }

    /// A stream that took the session's only place and that nobody reads (paused).
    private func unreadStream(on transport: HTTPTransport) async throws -> HTTPResponseStream {
        let stream = try await transport.stream(HTTPRequest(endpoint: server.http + "/endless"))
        await stream.channel.awaitPause()
        return stream
    }

    /// Bounds a scenario that would otherwise wait for ever: the stream goes after 15 s.
    private func watchdog(_ stream: HTTPResponseStream) -> Task<Void, Never> {
        Task {
            try? await Task.sleep(for: .seconds(15))
            stream.cancel()
        }
    }

    /// Runs `body` with a request of time-out 1 s while an unread stream holds the only place.
    private func behindAnUnreadStream(_ body: (HTTPTransport, HTTPRequest) async throws -> Void) async throws {
        let transport = transport()
        let stream = try await unreadStream(on: transport)
        let watchdog = watchdog(stream)
        defer { watchdog.cancel(); stream.cancel() }
        var request = HTTPRequest(endpoint: server.http + "/json")
        request.timeout = 1
        try await body(transport, request)
        XCTAssertEqual(transport.session.transferGate.counts.waiting, 0)
    }

    func testASendQueuedBehindAnUnreadStreamFailsWithTimeoutAtItsDeadline() async throws {
        try await behindAnUnreadStream { transport, request in
            let started = ContinuousClock.now
            do throws(HTTPTransportError) {
                _ = try await transport.send(request)
                XCTFail("the queued send must time out")
            } catch {
                XCTAssertEqual(error.code, .timeout)
                XCTAssertTrue(error.message.contains("maxConcurrentTransfers"), error.message)
            }
            let waited = ContinuousClock.now - started
            XCTAssertGreaterThanOrEqual(waited, .seconds(1))
            XCTAssertLessThan(waited, .seconds(5))
        }
    }

    func testAStreamQueuedBehindAnUnreadStreamFailsWithTimeoutAtItsDeadline() async throws {
        try await behindAnUnreadStream { transport, request in
            do throws(HTTPTransportError) {
                _ = try await transport.stream(request)
                XCTFail("the queued stream must time out")
            } catch {
                XCTAssertEqual(error.code, .timeout)
            }
        }
    }

    func testAPausedStreamNobodyReadsEndsAfterTheStallTimeoutAndFreesItsPlace() async throws {
        let transport = transport(stallTimeout: 1)
        let stream = try await unreadStream(on: transport)
        let watchdog = watchdog(stream)
        defer { watchdog.cancel() }
        var request = HTTPRequest(endpoint: server.http + "/json")
        request.timeout = 10
        let response = try await transport.send(request)
        XCTAssertEqual(response.httpStatus.rawValue, 200)
        do {
            for try await _ in stream.body {}
            XCTFail("the unread stream must have ended")
        } catch {
            XCTAssertEqual(error.code, .timeout)
            XCTAssertTrue(error.message.contains("not read"), error.message)
        }
    }

    func testADroppedStreamFreesItsPlaceAtOnce() async throws {
        let transport = transport()
        var stream: HTTPResponseStream? = try await unreadStream(on: transport)
        XCTAssertNotNil(stream)
        stream = nil
        var request = HTTPRequest(endpoint: server.http + "/json")
        request.timeout = 5
        let response = try await transport.send(request)
        XCTAssertEqual(response.httpStatus.rawValue, 200)
    }
}
