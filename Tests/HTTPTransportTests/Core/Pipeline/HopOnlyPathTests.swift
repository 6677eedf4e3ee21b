import Foundation
@testable import HTTPTransport
import XCTest

/// The direct path of a send whose only step is the hop step (`HopStep.sendDirectly`,
/// `SendPipeline.onlyHops`) against the chain it stands in for (`SendChain`), blocking and async,
/// on the same pipeline and the test server: each request goes both ways, one after the other,
/// and the two responses must agree in status, headers, body, error, request as sent and metrics.
final class HopOnlyPathTests: XCTestCase {
    /// A user's step that hands every request on as it is.
    private struct PassingStep: HTTPSendStep {
        func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Void, action: HTTPSendAction) {
            ((), .forward(request))
        }

        func resume(_ exchange: inout Void, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
            .answer(response)
        }
    }

    /// The request's two responses: by the direct path, then by the chain.
    private func bothWays(_ transport: HTTPTransport, _ request: HTTPRequest,
                          file: StaticString = #filePath, line: UInt = #line) throws -> (direct: RawResponse, chain: RawResponse) {
        let pipeline = SendPipeline.of(request, on: transport)
        XCTAssertTrue(pipeline.onlyHops, "the pipeline must take the direct path", file: file, line: line)
        let resolved = try pipeline.resolve(request)
        let context = HTTPSendContext(pipeline: pipeline, control: TransferControl(), telemetry: pipeline.session.sendEvents())
        let direct = HopStep.sendDirectly(resolved, context: context)
        let chain = SendChain(context: context).send(resolved, from: pipeline.blockingStart)
        return (direct, chain)
    }

    /// The same for an async send, which passed the transfer gate at once (`SendPipeline.runAsync`).
    private func bothWaysAsync(_ transport: HTTPTransport, _ request: HTTPRequest,
                               file: StaticString = #filePath, line: UInt = #line) async throws -> (direct: RawResponse, chain: RawResponse) {
        let pipeline = SendPipeline.of(request, on: transport)
        XCTAssertTrue(pipeline.onlyHops, "the pipeline must take the direct path", file: file, line: line)
        XCTAssertEqual(pipeline.blockingStart, 1, "an async send starts below the transfer gate's step", file: file, line: line)
        let resolved = try pipeline.resolve(request)
        let context = HTTPSendContext(pipeline: pipeline, control: TransferControl(), telemetry: pipeline.session.sendEvents())
        let direct = await HopStep.sendDirectly(resolved, context: context)
        let chain = await SendChain(context: context).send(resolved, from: pipeline.blockingStart)
        return (direct, chain)
    }

    /// Fails unless the two responses agree (the server's `Date` header and the echo's request
    /// count aside, and the timings, which differ by nature).
    private func assertSame(_ pair: (direct: RawResponse, chain: RawResponse), file: StaticString = #filePath, line: UInt = #line) {
        let (direct, chain) = pair
        XCTAssertEqual(direct.statusCode, chain.statusCode, file: file, line: line)
        XCTAssertEqual(withoutDate(direct.headers), withoutDate(chain.headers), file: file, line: line)
        XCTAssertEqual(echoed(direct.data), echoed(chain.data), file: file, line: line)
        XCTAssertEqual(direct.error?.code, chain.error?.code, file: file, line: line)
        XCTAssertEqual(direct.error.map { withoutTime($0.message) }, chain.error.map { withoutTime($0.message) }, file: file, line: line)
        XCTAssertEqual(direct.error?.url, chain.error?.url, file: file, line: line)
        XCTAssertEqual(direct.error?.httpStatusCode, chain.error?.httpStatusCode, file: file, line: line)
        XCTAssertEqual(withoutDate(direct.error?.responseHeaders ?? HTTPHeaders()), withoutDate(chain.error?.responseHeaders ?? HTTPHeaders()),
                       file: file, line: line)
        XCTAssertEqual(direct.wasSent, chain.wasSent, file: file, line: line)
        XCTAssertEqual(direct.request.url, chain.request.url, file: file, line: line)
        XCTAssertEqual(direct.request.method, chain.request.method, file: file, line: line)
        XCTAssertEqual(direct.request.headers, chain.request.headers, file: file, line: line)
        XCTAssertEqual(direct.request.redirectedFrom, chain.request.redirectedFrom, file: file, line: line)
        var directFigures = direct.metrics, chainFigures = chain.metrics
        for figures in [\TransferMetrics.nameLookup, \.connect, \.tlsHandshake, \.firstByte, \.total] {
            directFigures[keyPath: figures] = 0
            chainFigures[keyPath: figures] = 0
        }
        // (The first send may open the connection the second reuses.)
        directFigures.connectionReused = chainFigures.connectionReused
        // An echo's count may gain a digit between the two (99 to 100): its body and length differ.
        directFigures.bytesReceived -= echoLength(direct)
        chainFigures.bytesReceived -= echoLength(chain)
        XCTAssertEqual(directFigures, chainFigures, file: file, line: line)
    }

    /// The headers but `Date` and `Content-Length` (an echo's length varies with its count; the
    /// bodies are compared).
    private func withoutDate(_ headers: HTTPHeaders) -> [String] {
        headers.map { "\($0.name): \($0.value)" }.filter {
            !$0.lowercased().hasPrefix("date:") && !$0.lowercased().hasPrefix("content-length:")
        }
    }

    /// A message with libcurl's elapsed time left out ("… port 57509 after 3 ms: …"), which differs by nature.
    private func withoutTime(_ message: String) -> String {
        message.replacingOccurrences(of: #"after [0-9]+ ms"#, with: "after … ms", options: .regularExpression)
    }

    /// The bytes of the final body (`bytesReceived` counts bodies only).
    private func echoLength(_ response: RawResponse) -> Int64 {
        Int64(response.data?.count ?? 0)
    }

    /// The body, an echo's request count and connection aside.
    private func echoed(_ data: Data?) -> String? {
        guard let data else { return nil }
        guard var echo = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return String(decoding: data, as: UTF8.self) }
        echo["request_count"] = nil
        echo["connection_id"] = nil
        return (try? JSONSerialization.data(withJSONObject: echo, options: .sortedKeys)).map { String(decoding: $0, as: UTF8.self) }
    }

    func testOnlyAPipelineOfTheHopStepAloneTakesTheDirectPath() {
        XCTAssertTrue(HTTPTransport().pipeline.onlyHops)
        var configuration = Session.Configuration()
        configuration.cache = HTTPCache()
        XCTAssertFalse(HTTPTransport(session: Session(configuration: configuration)).pipeline.onlyHops)
        XCTAssertFalse(HTTPTransport(retrier: RetryPolicy()).pipeline.onlyHops)
        var stepped = Session.Configuration()
        stepped.networkSteps = [PassingStep()]
        XCTAssertFalse(HTTPTransport(session: Session(configuration: stepped)).pipeline.onlyHops)
    }

    func testAPlainGetAndItsHeaders() async throws {
        let transport = HTTPTransport()
        let plain = HTTPRequest(endpoint: server.http + "/anything/plain?a=1").with(header: "X-Test", value: "1")
        let headers = HTTPRequest(endpoint: server.http + "/headers/multi")
        assertSame(try bothWays(transport, plain))
        assertSame(try bothWays(transport, headers))
        assertSame(try await bothWaysAsync(transport, plain))
        assertSame(try await bothWaysAsync(transport, headers))
    }

    func testRedirectsAreFollowedAlikeAndTheLimitFailsAlike() async throws {
        let transport = HTTPTransport()
        let redirected = HTTPRequest(endpoint: server.http + "/redirect/2")
        for pair in [try bothWays(transport, redirected), try await bothWaysAsync(transport, redirected)] {
            XCTAssertEqual(pair.direct.metrics.redirectCount, 2)
            assertSame(pair)
        }
        var configuration = Session.Configuration()
        configuration.maxRedirects = 1
        let limiting = HTTPTransport(session: Session(configuration: configuration))
        let tooFar = HTTPRequest(endpoint: server.http + "/redirect/3")
        for limited in [try bothWays(limiting, tooFar), try await bothWaysAsync(limiting, tooFar)] {
            XCTAssertEqual(limited.direct.error?.code, .tooManyRedirects)
            assertSame(limited)
        }
    }

    func testAStatusFailureAndAnUnvalidatedStatus() async throws {
        let (validating, missing) = (HTTPTransport(), HTTPRequest(endpoint: server.http + "/status/404"))
        for validated in [try bothWays(validating, missing), try await bothWaysAsync(validating, missing)] {
            XCTAssertEqual(validated.direct.error?.code, .httpStatus)
            assertSame(validated)
        }
        let (lenient, unavailable) = (HTTPTransport(useDefaultValidation: false), HTTPRequest(endpoint: server.http + "/status/503"))
        for unvalidated in [try bothWays(lenient, unavailable), try await bothWaysAsync(lenient, unavailable)] {
            XCTAssertNil(unvalidated.direct.error)
            XCTAssertEqual(unvalidated.direct.statusCode?.rawValue, 503)
            assertSame(unvalidated)
        }
    }

    func testAConnectionFailure() async throws {
        let (transport, refused) = (HTTPTransport(), HTTPRequest(endpoint: "http://127.0.0.1:\(TestServer.closedPort())/refused"))
        for pair in [try bothWays(transport, refused), try await bothWaysAsync(transport, refused)] {
            XCTAssertEqual(pair.direct.error?.code, .cannotConnect)
            assertSame(pair)
        }
    }

    func testInterceptorsSeeEveryHopAlikeAndAFailingOneSendsNothing() async throws {
        let seen = Recorder<String>()
        let stamping = ClosureRequestInterceptor { request in
            seen.add(request.url.path)
            var request = request
            request.headers["X-Hop"] = request.url.path
            return request
        }
        let marking = ClosureResponseInterceptor { response in
            var response = response
            response.headers.add("X-Seen", "yes")
            return response
        }
        let transport = HTTPTransport(requestInterceptors: [stamping], responseInterceptors: [marking])
        let redirected = HTTPRequest(endpoint: server.http + "/redirect/1")
        assertSame(try bothWays(transport, redirected))
        assertSame(try await bothWaysAsync(transport, redirected))
        XCTAssertEqual(seen.values, Array(repeating: ["/redirect/1", "/redirect/0"], count: 4).flatMap { $0 })

        let refusing = ClosureRequestInterceptor { _ in throw HTTPTransportError(code: .interceptorFailed, message: "no") }
        let (refusingTransport, anything) = (HTTPTransport(requestInterceptors: [refusing]), HTTPRequest(endpoint: server.http + "/anything"))
        for refused in [try bothWays(refusingTransport, anything), try await bothWaysAsync(refusingTransport, anything)] {
            XCTAssertEqual(refused.direct.error?.code, .interceptorFailed)
            XCTAssertFalse(refused.direct.wasSent)
            assertSame(refused)
        }
    }
}
