@testable import HTTPTransport
import XCTest

/// `transport.stream(_:)`: the head, then the body as it arrives, with back-pressure,
/// time-outs for long streams and prompt cancellation (DESIGN §1d).
final class ResponseStreamTests: XCTestCase {
    private let transport = HTTPTransport()

    private func pattern(_ count: Int) -> Data { Data((0..<count).map { UInt8($0 % 251) }) }

    private func read(_ stream: HTTPResponseStream) async throws -> Data {
        var body = Data()
        for try await chunk in stream.body { body.append(chunk) }
        return body
    }

    func testTheHeadComesFirstThenTheWholeBodyInOrder() async throws {
        let stream = try await transport.stream(HTTPRequest(endpoint: server.http + "/stream-bytes/3000000"))
        XCTAssertEqual(stream.httpStatus, .ok)
        XCTAssertNotNil(stream.header(named: "x-sha256"))
        XCTAssertEqual(stream.request.url.path, "/stream-bytes/3000000")
        let body = try await read(stream)
        XCTAssertEqual(body, pattern(3_000_000))
    }

    func testLinesOfAnNDJSONFeed() async throws {
        let stream = try await transport.stream(HTTPRequest(endpoint: server.http + "/ndjson?count=4&delay=0.05"))
        var lines: [String] = []
        for try await line in stream.lines { lines.append(line) }
        XCTAssertEqual(lines, (0..<4).map { #"{"n": \#($0)}"# })
    }

    func testTheBodyIsReadOnce() async throws {
        let stream = try await transport.stream(HTTPRequest(endpoint: server.http + "/json"))
        _ = try await read(stream)
        do {
            _ = try await read(stream)
            XCTFail("a second reading succeeded")
        } catch {
            XCTAssertEqual((error as? HTTPTransportError)?.code, .other)
        }
    }

    func testAFailedStatusThrowsHTTPStatusWithTheFirst64KiB() async {
        do {
            _ = try await transport.stream(HTTPRequest(endpoint: server.http + "/cache/stream-error?status=503&size=300000"))
            XCTFail("no error")
        } catch {
            XCTAssertEqual(error.code, .httpStatus)
            XCTAssertEqual(error.httpStatusCode, .serviceUnavailable)
            XCTAssertEqual(error.responseBodyData?.count, 64 * 1024)
        }
    }

    func testRedirectsAndInterceptorsRunAsForSendAndResponseInterceptorsSeeTheHead() async throws {
        let heads = Recorder<(Int?, Bool)>()
        let request = HTTPRequest(endpoint: server.http + "/redirect/2")
            .with(interceptors: [ClosureRequestInterceptor { request in
                var request = request
                request.setValue("yes", forHTTPHeaderField: "X-Intercepted")
                return request
            }])
            .with(interceptors: [ClosureResponseInterceptor { response in
                heads.add((response.statusCode?.rawValue, response.data == nil))
                return response
            }])
        let stream = try await transport.stream(request)
        XCTAssertEqual(stream.metrics.redirectCount, 2)
        let body = String(decoding: try await read(stream), as: UTF8.self)
        XCTAssertTrue(body.lowercased().contains("x-intercepted"), body)
        // Two redirects (seen as for send), then the final head once, without its body.
        XCTAssertEqual(heads.values.map(\.0), [302, 302, 200])
        XCTAssertEqual(heads.values.last?.1, true)
    }

    func testAResponseInterceptorsErrorIsThrownAndStopsTheTransfer() async {
        let failing = ClosureResponseInterceptor { response in
            var response = response
            response.error = HTTPTransportError(code: .other, message: "refused by the interceptor")
            return response
        }
        do {
            _ = try await transport.stream(HTTPRequest(endpoint: server.http + "/endless").with(interceptors: [failing]))
            XCTFail("no error")
        } catch {
            XCTAssertEqual(error.message, "refused by the interceptor")
        }
    }

    func testTheTimeoutBoundsTheHeadOnly() async throws {
        let stream = try await transport.stream(HTTPRequest(endpoint: server.http + "/drip?bytes=6&delay=0.7", timeout: 2))
        let body = try await read(stream)
        XCTAssertEqual(body.count, 6)
    }

    func testAHeadLaterThanTheTimeoutThrowsTimeout() async {
        do {
            _ = try await transport.stream(HTTPRequest(endpoint: server.http + "/delay/5", timeout: 0.5))
            XCTFail("no error")
        } catch {
            XCTAssertEqual(error.code, .timeout)
        }
    }

    func testARetrierRepeatsTheExchangeBeforeTheHead() async throws {
        let retrying = HTTPTransport(retrier: RetryPolicy(maxAttempts: 2, baseDelay: 0))
        let key = UUID().uuidString
        let stream = try await retrying.stream(HTTPRequest(endpoint: server.http + "/flaky?key=\(key)&fail=1&status=503"))
        let body = try await read(stream)
        let echo = try XCTUnwrap(JSONSerialization.jsonObject(with: body) as? [String: Any])
        XCTAssertEqual(echo["attempts"] as? Int, 2)
    }

    func testASlowReaderPausesTheTransferWithTheBufferBounded() async throws {
        let stream = try await transport.stream(HTTPRequest(endpoint: server.http + "/endless"))
        await stream.channel.awaitPause()
        // (The bytes gathered when the transfer paused go in too: at most one piece more.)
        XCTAssertLessThanOrEqual(stream.channel.bufferedBytes, StreamBuffer.defaultLimit + StreamReceiver.pieceSize)
        // Reading three buffers' worth resumes the transfer each time, in order.
        var read = 0
        for try await chunk in stream.body {
            read += chunk.count
            if read > 3 * StreamBuffer.defaultLimit { break }
        }
        await stream.channel.awaitTransferEnd()
    }

    func testAReaderTakingChunksWithinTheStallTimeoutKeepsAPausedStream() async throws {
        var configuration = Session.Configuration()
        configuration.stallTimeout = 1
        let stalling = HTTPTransport(session: Session(configuration: configuration))
        let stream = try await stalling.stream(HTTPRequest(endpoint: server.http + "/endless"))
        await stream.channel.awaitPause()
        // The scenario itself: a slow reader, one chunk every 0.4 s for longer than the stall
        // time-out, too little to resume the transfer meanwhile.
        var iterator = stream.body.makeAsyncIterator()
        for _ in 0..<6 {
            try await Task.sleep(for: .milliseconds(400))
            _ = try await iterator.next()
        }
        var read = 0
        while let chunk = try await iterator.next() {
            read += chunk.count
            if read > 2 * StreamBuffer.defaultLimit { break }
        }
        XCTAssertGreaterThan(read, 2 * StreamBuffer.defaultLimit)
    }

    func testTheHeadAStreamKeepsDoesNotReferBackToItsChannel() async throws {
        // Such a reference (through the request's streaming body) made a cycle that kept every
        // finished stream, head and channel, alive.
        let stream = try await transport.stream(HTTPRequest(endpoint: server.http + "/json"))
        XCTAssertNil(stream.request.streaming)
        _ = try await read(stream)
    }
}
