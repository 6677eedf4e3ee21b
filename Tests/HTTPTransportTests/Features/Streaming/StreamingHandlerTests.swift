import Foundation
import HTTPTransport
import XCTest

/// The blocking form `request.streaming { chunk in … }`: the body goes to the handler on the
/// sending thread, in order, instead of memory (DESIGN §1d).
final class StreamingHandlerTests: XCTestCase {
    private let transport = HTTPTransport()

    /// The server's `/bytes/<n>` and `/stream-bytes/<n>` content.
    private func pattern(_ count: Int) -> Data { Data((0..<count).map { UInt8($0 % 251) }) }

    func testHandlerGetsTheWholeBodyInOrderOnTheSendingThreadAndTheResponseBodyIsNil() throws {
        let received = Protected(Data())
        let threads = Protected(Set<UInt>())
        let sender = UInt(pthread_self())
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/stream-bytes/300000").streaming { chunk in
            received.withLock { $0.append(chunk) }
            threads.withLock { _ = $0.insert(UInt(pthread_self())) }
            return true
        })
        XCTAssertNil(response.body)
        XCTAssertEqual(received.value, pattern(300_000))
        XCTAssertEqual(threads.value, [sender])
    }

    func testHandlerReturningFalseEndsTheSendWithCancelledAndTheTransportKeepsWorking() throws {
        let chunks = Protected(0)
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/endless").streaming { _ in
            chunks.withLock { $0 += 1 }
            return chunks.value < 3
        })
        XCTAssertEqual(result.error?.code, .cancelled, "\(String(describing: result.error))")
        XCTAssertEqual(chunks.value, 3)
        XCTAssertNotNil(try sendOK(transport, HTTPRequest(endpoint: server.http + "/json")).body)
    }

    func testFailedStatusDoesNotCallTheHandlerAndTheErrorCarriesTheFirst64KiB() {
        let called = Protected(false)
        let request = HTTPRequest(endpoint: server.http + "/cache/streaming-error?status=500&size=300000").streaming { _ in
            called.value = true
            return true
        }
        let result = transport.send(request: request)
        XCTAssertEqual(result.error?.code, .httpStatus)
        XCTAssertEqual(result.error?.httpStatusCode, .internalServerError)
        XCTAssertEqual(result.error?.responseBodyData?.count, 64 * 1024)
        XCTAssertFalse(called.value)
    }

    func testMaxResponseSizeDoesNotApplyToAStreamedBody() throws {
        var configuration = Session.Configuration()
        configuration.maxResponseSize = 1000
        let small = HTTPTransport(session: Session(configuration: configuration))
        let count = Protected(0)
        _ = try sendOK(small, HTTPRequest(endpoint: server.http + "/bytes/200000").streaming { chunk in
            count.withLock { $0 += chunk.count }
            return true
        })
        XCTAssertEqual(count.value, 200_000)
    }

    func testTheTimeoutBoundsTheHeadOnlyNotALongStream() throws {
        // Six bytes 0.4 s apart: the body takes about 2.4 s, past the 1 s time-out.
        let count = Protected(0)
        let started = ContinuousClock.now
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/drip?bytes=6&delay=0.7", timeout: 2).streaming { chunk in
            count.withLock { $0 += chunk.count }
            return true
        })
        XCTAssertEqual(count.value, 6)
        XCTAssertGreaterThan(ContinuousClock.now - started, .seconds(2))
    }

    func testAHeadLaterThanTheTimeoutFailsWithTimeout() {
        let started = ContinuousClock.now
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/delay/5", timeout: 0.5).streaming { _ in true })
        XCTAssertEqual(result.error?.code, .timeout, "\(String(describing: result.error))")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3))
    }

    func testASilentStreamEndsAfterTheSessionsStallTimeout() {
        var configuration = Session.Configuration()
        configuration.stallTimeout = 1
        let stalling = HTTPTransport(session: Session(configuration: configuration))
        let started = ContinuousClock.now
        let result = stalling.send(request: HTTPRequest(endpoint: server.http + "/stall?seconds=30", timeout: 60).streaming { _ in true })
        XCTAssertEqual(result.error?.code, .timeout, "\(String(describing: result.error))")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
    }

    func testRedirectBodiesAreNotStreamedOnlyTheFinalOne() throws {
        let received = Protected(Data())
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/redirect/2").streaming { chunk in
            received.withLock { $0.append(chunk) }
            return true
        })
        let echo = try XCTUnwrap(JSONSerialization.jsonObject(with: received.value) as? [String: Any])
        XCTAssertNotNil(echo["url"] ?? echo["path"], "\(echo)")
    }

    func testUploadRequestsStreamTheirResponseToo() throws {
        let received = Protected(Data())
        let upload = DataUploadHTTPRequest(endpoint: server.http + "/upload", data: Data(repeating: 7, count: 1000))
        let response = try sendOK(transport, upload.streaming { chunk in
            received.withLock { $0.append(chunk) }
            return true
        })
        XCTAssertNil(response.body)
        let echo = try XCTUnwrap(JSONSerialization.jsonObject(with: received.value) as? [String: Any])
        XCTAssertEqual(echo["size"] as? Int, 1000)
    }

    func testAnEngineThatReturnsBodiesWholeHandsThemToTheHandler() throws {
        let stub = StubEngine { RawResponse(request: $0, statusCode: .ok, data: Data("a\nb\n".utf8)) }
        let received = Protected(Data())
        let response = try sendOK(HTTPTransport(session: Session(engine: stub)), HTTPRequest(endpoint: "http://stub.invalid/").streaming { chunk in
            received.withLock { $0.append(chunk) }
            return true
        })
        XCTAssertNil(response.body)
        XCTAssertEqual(received.value, Data("a\nb\n".utf8))
    }

    func testAFailureAfterBodyBytesReachedTheHandlerIsNotRetried() {
        // 50 of 100 announced bytes, then the connection closes: a retryable fault.
        let received = Protected(0)
        let retrying = HTTPTransport(retrier: RetryPolicy(maxAttempts: 3, baseDelay: 0))
        let result = retrying.send(request: HTTPRequest(endpoint: server.http + "/fault/truncated").streaming { chunk in
            received.withLock { $0 += chunk.count }
            return true
        })
        XCTAssertNotNil(result.error)
        XCTAssertEqual(received.value, 50)
    }

    func testAStreamIsNeitherServedFromNorStoredInTheCache() throws {
        let caching = cachingTransport(HTTPCache())
        let resource = CachedResource(["cc": "max-age=60"])
        // A stream first: not stored, so the next plain send goes to the server too.
        let streamed = Protected(0)
        _ = try sendOK(caching, resource.request.streaming { chunk in
            streamed.withLock { $0 += chunk.count }
            return true
        })
        XCTAssertGreaterThan(streamed.value, 0)
        XCTAssertEqual(try sendOK(caching, resource.request).metrics.cacheStatus, .miss)
        // Now stored: a stream still goes to the server (and gets the body).
        XCTAssertEqual(try sendOK(caching, resource.request).metrics.cacheStatus, .hit)
        streamed.value = 0
        _ = try sendOK(caching, resource.request.streaming { chunk in
            streamed.withLock { $0 += chunk.count }
            return true
        })
        XCTAssertGreaterThan(streamed.value, 0)
        XCTAssertEqual(try resource.count(), 3)
    }
}
