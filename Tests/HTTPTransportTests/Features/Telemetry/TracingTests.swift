import CoreMetrics
import Foundation
@testable import HTTPTransport
import InMemoryTracing
import Tracing
import XCTest

/// Tracing through swift-distributed-tracing: a client span per hop with OpenTelemetry's HTTP
/// client attributes, nested in the caller's span, and the trace context sent to the server.
/// Tracers are passed through the session's configuration (no global bootstrap).
final class TracingTests: XCTestCase {
    private func transport(tracer: any Tracer, retrier: (any HTTPRetrier)? = nil,
                           requestInterceptors: [any HTTPRequestInterceptor] = []) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.tracer = tracer
        return HTTPTransport(session: Session(configuration: configuration), requestInterceptors: requestInterceptors,
                             retrier: retrier)
    }

    private var port: Int { server.ports["http"] ?? 0 }

    /// Sends a GET inside a span named `job`; returns that span and the client spans.
    private func sendInJobSpan(_ tracer: InMemoryTracer, path: String) throws -> (job: FinishedInMemorySpan, hops: [FinishedInMemorySpan]) {
        let transport = transport(tracer: tracer)
        let result = tracer.withSpan("job") { _ in
            transport.send(request: HTTPRequest(endpoint: server.http + path))
        }
        XCTAssertTrue(result.isSuccess, "\(String(describing: result.error))")
        let job = try XCTUnwrap(tracer.finishedSpans.first { $0.operationName == "job" })
        return (job, tracer.finishedSpans.filter { $0.kind == .client })
    }

    /// An interceptor that notes the `requestID` of every request it sees.
    private func requestIDRecorder() -> (ids: Protected<[String?]>, interceptor: ClosureRequestInterceptor) {
        let ids = Protected<[String?]>([])
        let interceptor = ClosureRequestInterceptor { request in
            ids.withLock { $0.append(request.requestID) }
            return request
        }
        return (ids, interceptor)
    }

    // MARK: Spans and their attributes

    func testEachHopIsAClientSpanNamedAfterTheMethodWithTheHTTPAttributes() throws {
        let tracer = InMemoryTracer()
        _ = try sendOK(transport(tracer: tracer), HTTPRequest(httpMethod: .put, endpoint: server.http + "/anything/span"))

        let span = try XCTUnwrap(tracer.finishedSpans.only)
        XCTAssertEqual(span.operationName, "PUT")
        XCTAssertEqual(span.kind, .client)
        XCTAssertEqual(span.attributes.get("http.request.method"), .string("PUT"))
        XCTAssertEqual(span.attributes.get("url.full"), .string(server.http + "/anything/span"))
        XCTAssertEqual(span.attributes.get("server.address"), .string("127.0.0.1"))
        XCTAssertEqual(span.attributes.get("server.port"), .int64(Int64(port)))
        XCTAssertEqual(span.attributes.get("network.protocol.version"), .string("1.1"))
        XCTAssertEqual(span.attributes.get("http.response.status_code"), .int64(200))
        XCTAssertNil(span.attributes.get("error.type"))
        XCTAssertNil(span.attributes.get("http.request.resend_count"))
        XCTAssertNil(span.status, "a success leaves the status unset")
        XCTAssertTrue(tracer.activeSpans.isEmpty, "the span ended with the hop")
    }

    func testSpanDescribesTheRequestAsTheInterceptorsLeftIt() throws {
        let tracer = InMemoryTracer()
        let rewrite = ClosureRequestInterceptor { request in
            var request = request
            request.method = .post
            request.url = try XCTUnwrap(URL(string: request.url.absoluteString.replacingOccurrences(of: "/before", with: "/after")))
            return request
        }
        _ = try sendOK(transport(tracer: tracer, requestInterceptors: [rewrite]), HTTPRequest(endpoint: server.http + "/anything/before"))

        let span = try XCTUnwrap(tracer.finishedSpans.only)
        XCTAssertEqual(span.operationName, "POST")
        XCTAssertEqual(span.attributes.get("http.request.method"), .string("POST"))
        XCTAssertEqual(span.attributes.get("url.full"), .string(server.http + "/anything/after"))
    }

    func testURLFullHidesSecretsAsTheLogsDo() throws {
        let tracer = InMemoryTracer()
        let request = HTTPRequest(endpoint: "http://user:pa55@127.0.0.1:\(port)/anything/secret?token=abc&page=2")
        _ = try sendOK(transport(tracer: tracer), request)

        let url = try XCTUnwrap(tracer.finishedSpans.only?.attributes.get("url.full"))
        XCTAssertEqual(url, .string("http://user:<redacted>@127.0.0.1:\(port)/anything/secret?token=<redacted>&page=2"))
    }

    func testSpanIsAChildOfTheCallersSpan() throws {
        let (job, hops) = try sendInJobSpan(InMemoryTracer(), path: "/anything/child")
        let client = try XCTUnwrap(hops.only)
        XCTAssertEqual(client.operationName, "GET")
        XCTAssertEqual(client.traceID, job.traceID)
        XCTAssertEqual(client.parentSpanID, job.spanID)
    }

    func testSpanNestsInTheCallersSpanOnAPlainThread() throws {
        let tracer = InMemoryTracer()
        let transport = transport(tracer: tracer)
        let url = server.http + "/anything/daemon-thread"
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            tracer.withSpan("job") { _ in _ = transport.send(request: HTTPRequest(endpoint: url)) }
            done.signal()
        }
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)

        let job = try XCTUnwrap(tracer.finishedSpans.first { $0.operationName == "job" })
        let client = try XCTUnwrap(tracer.finishedSpans.first { $0.operationName == "GET" })
        XCTAssertEqual(client.parentSpanID, job.spanID)
    }

    func testAsyncBridgeKeepsTheCallersSpanAsParent() async throws {
        let tracer = InMemoryTracer()
        let transport = transport(tracer: tracer)
        let url = server.http + "/anything/async-span"
        let response = try await tracer.withSpan("task") { _ in
            try await transport.send(HTTPRequest(endpoint: url))
        }
        XCTAssertEqual(response.httpStatus, .ok)

        let task = try XCTUnwrap(tracer.finishedSpans.first { $0.operationName == "task" })
        let client = try XCTUnwrap(tracer.finishedSpans.first { $0.operationName == "GET" })
        XCTAssertEqual(client.traceID, task.traceID)
        XCTAssertEqual(client.parentSpanID, task.spanID)
    }

    // MARK: Redirects and retries

    func testRedirectsMakeOneSpanPerHopInOneTrace() throws {
        let tracer = InMemoryTracer()
        _ = try sendOK(transport(tracer: tracer), HTTPRequest(endpoint: server.http + "/redirect/2"))

        let spans = tracer.finishedSpans
        XCTAssertEqual(spans.map { $0.attributes.get("url.full") }, [
            .string(server.http + "/redirect/2"), .string(server.http + "/redirect/1"), .string(server.http + "/redirect/0"),
        ])
        XCTAssertEqual(spans.map { $0.attributes.get("http.response.status_code") }, [.int64(302), .int64(302), .int64(200)])
        XCTAssertEqual(spans.map { $0.attributes.get("http.request.resend_count") }, [nil, .int64(1), .int64(2)])
        XCTAssertEqual(Set(spans.map(\.traceID)).count, 1, "one trace")
        // No span around the send: the first hop is the root, the later hops its children.
        XCTAssertNil(spans[0].parentSpanID)
        XCTAssertEqual(spans[1].parentSpanID, spans[0].spanID)
        XCTAssertEqual(spans[2].parentSpanID, spans[0].spanID)
    }

    func testRedirectHopsAreSiblingsInTheCallersSpan() throws {
        let (job, hops) = try sendInJobSpan(InMemoryTracer(), path: "/redirect/1")
        XCTAssertEqual(hops.count, 2)
        XCTAssertEqual(hops.map(\.parentSpanID), [job.spanID, job.spanID])
    }

    func testRetriesAreSpansWithTheirResendCount() throws {
        let tracer = InMemoryTracer()
        let key = "tracing-\(UUID().uuidString)"
        let retrier = RetryPolicy(maxAttempts: 3, baseDelay: 0, maxDelay: 0)
        _ = try sendOK(transport(tracer: tracer, retrier: retrier),
                       HTTPRequest(endpoint: server.http + "/flaky?key=\(key)&fail=1&status=503"))

        let spans = tracer.finishedSpans
        XCTAssertEqual(spans.map { $0.attributes.get("http.response.status_code") }, [.int64(503), .int64(200)])
        XCTAssertEqual(spans.map { $0.attributes.get("http.request.resend_count") }, [nil, .int64(1)])
        XCTAssertEqual(spans[0].attributes.get("error.type"), .string("503"))
        XCTAssertEqual(spans[1].traceID, spans[0].traceID)
    }

    // MARK: Failures

    func testErrorStatusMarksTheSpanAsAnError() throws {
        let tracer = InMemoryTracer()
        let result = transport(tracer: tracer).send(request: HTTPRequest(endpoint: server.http + "/status/503"))
        XCTAssertEqual(result.error?.httpStatusCode, .serviceUnavailable)

        let span = try XCTUnwrap(tracer.finishedSpans.only)
        XCTAssertEqual(span.attributes.get("http.response.status_code"), .int64(503))
        XCTAssertEqual(span.attributes.get("error.type"), .string("503"))
        XCTAssertEqual(span.status?.code, .error)
    }

    func testRefusedConnectionNamesItsErrorType() throws {
        let tracer = InMemoryTracer()
        let url = "http://127.0.0.1:\(TestServer.closedPort())/nothing"
        let result = transport(tracer: tracer).send(request: HTTPRequest(endpoint: url))
        XCTAssertEqual(result.error?.code, .cannotConnect)

        let span = try XCTUnwrap(tracer.finishedSpans.only)
        XCTAssertEqual(span.attributes.get("error.type"), .string("cannot_connect"))
        XCTAssertNil(span.attributes.get("http.response.status_code"))
        XCTAssertNil(span.attributes.get("network.protocol.version"))
        XCTAssertEqual(span.status?.code, .error)
    }

    func testTimeoutNamesItsErrorType() throws {
        let tracer = InMemoryTracer()
        let result = transport(tracer: tracer).send(request: HTTPRequest(endpoint: server.http + "/delay/5", timeout: 0.3))
        XCTAssertEqual(result.error?.code, .timeout)
        XCTAssertEqual(tracer.finishedSpans.only?.attributes.get("error.type"), .string("timeout"))
    }

    func testThrowingInterceptorEndsTheSpanAsAnError() throws {
        struct Refusal: Error {}
        let tracer = InMemoryTracer()
        let refusing = ClosureRequestInterceptor { _ in throw Refusal() }
        let result = transport(tracer: tracer, requestInterceptors: [refusing])
            .send(request: HTTPRequest(endpoint: server.http + "/anything/refused"))
        XCTAssertEqual(result.error?.code, .interceptorFailed)

        let span = try XCTUnwrap(tracer.finishedSpans.only)
        XCTAssertEqual(span.attributes.get("error.type"), .string("interceptor_failed"))
        XCTAssertEqual(span.status?.code, .error)
        XCTAssertTrue(tracer.activeSpans.isEmpty)
    }

    // MARK: Propagation and request ids

    func testServerReceivesTheHopSpansTraceparent() throws {
        let tracer = W3CTestTracer()
        let response = try sendOK(transport(tracer: tracer), HTTPRequest(endpoint: server.http + "/anything/propagate"))

        let span = try XCTUnwrap(tracer.finishedSpans.only)
        let headers = try XCTUnwrap(try echo(response)["headers_dict"] as? [String: String])
        XCTAssertEqual(headers["traceparent"], "00-\(span.traceID)-\(span.spanID)-01")
    }

    func testTraceparentIsSetAfterTheRequestInterceptors() throws {
        let tracer = W3CTestTracer()
        let seen = Protected<[String?]>([])
        let interceptor = ClosureRequestInterceptor { request in
            seen.withLock { $0.append(request.value(forHTTPHeaderField: "traceparent")) }
            var request = request
            request.setValue("00-bogus", forHTTPHeaderField: "traceparent")
            return request
        }
        let response = try sendOK(transport(tracer: tracer, requestInterceptors: [interceptor]),
                                  HTTPRequest(endpoint: server.http + "/anything/after"))

        XCTAssertEqual(seen.withLock { $0 }, [nil], "interceptors run before the context is injected")
        let span = try XCTUnwrap(tracer.finishedSpans.only)
        let headers = try XCTUnwrap(try echo(response)["headers_dict"] as? [String: String])
        XCTAssertEqual(headers["traceparent"], "00-\(span.traceID)-\(span.spanID)-01", "one traceparent: the span's")
    }

    func testRequestIDIsTheTraceIDWhenInterceptorsRun() throws {
        let tracer = W3CTestTracer()
        let (ids, interceptor) = requestIDRecorder()
        _ = try sendOK(transport(tracer: tracer, requestInterceptors: [interceptor]),
                       HTTPRequest(endpoint: server.http + "/redirect/1"))

        let traceID = try XCTUnwrap(tracer.finishedSpans.first?.traceID)
        XCTAssertEqual(traceID.count, 32)
        XCTAssertEqual(ids.withLock { $0 }, [traceID, traceID], "one id for every hop of the send")
    }

    func testRequestIDFollowsATracersOwnTraceIDField() throws {
        let tracer = InMemoryTracer()  // injects `in-memory-trace-id`
        let (ids, interceptor) = requestIDRecorder()
        _ = try sendOK(transport(tracer: tracer, requestInterceptors: [interceptor]),
                       HTTPRequest(endpoint: server.http + "/anything/id"))
        XCTAssertEqual(ids.withLock { $0 }, [tracer.finishedSpans.only?.traceID])
    }

    func testTraceIDIsReadFromEachPropagationFormat() {
        let trace = "4bf92f3577b34da6a3ce929d0e0e4736"
        XCTAssertEqual(TraceIDReader.traceID(in: [("traceparent", "00-\(trace)-00f067aa0ba902b7-01")]), trace)
        XCTAssertEqual(TraceIDReader.traceID(in: [("X-B3-TraceId", trace), ("X-B3-SpanId", "00f067aa0ba902b7")]), trace)
        XCTAssertEqual(TraceIDReader.traceID(in: [("b3", "\(trace)-00f067aa0ba902b7-1")]), trace)
        XCTAssertEqual(TraceIDReader.traceID(in: [("uber-trace-id", "\(trace):00f067aa0ba902b7:0:1")]), trace)
        XCTAssertNil(TraceIDReader.traceID(in: [("traceparent", "00-short-00f067aa0ba902b7-01")]))
        XCTAssertNil(TraceIDReader.traceID(in: [("traceparent", "garbage")]))
        XCTAssertNil(TraceIDReader.traceID(in: [("tracestate", "vendor=1")]))
    }

    func testErrorTypesAreTheCodesInSnakeCase() {
        XCTAssertEqual(TelemetryNames.errorType(.nameResolution), "name_resolution")
        XCTAssertEqual(TelemetryNames.errorType(.invalidURL), "invalid_url")
        XCTAssertEqual(TelemetryNames.errorType(.fileIO), "file_io")
        XCTAssertEqual(TelemetryNames.errorType(.tlsFailure), "tls_failure")
        XCTAssertEqual(TelemetryNames.errorType(.other), "_OTHER")
        let notFound = HTTPTransportError(code: .httpStatus, message: "", httpStatusCode: .notFound)
        XCTAssertEqual(TelemetryNames.errorType(notFound), "404")
    }

    // MARK: Nothing configured

    func testWithNothingConfiguredOrBootstrappedTelemetryIsOff() throws {
        let session = Session()
        XCTAssertNil(session.telemetry.tracer)
        XCTAssertNil(session.telemetry.metrics)
        XCTAssertFalse(session.sendEvents().isRecording)

        let (ids, interceptor) = requestIDRecorder()
        let transport = HTTPTransport(session: session, requestInterceptors: [interceptor])
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything/off"))
        let headers = try XCTUnwrap(try echo(response)["headers_dict"] as? [String: String])
        XCTAssertNil(headers["traceparent"])
        XCTAssertEqual(ids.withLock { $0 }, [nil])
    }

    func testNoOpTracerAndFactoryConfiguredCountAsOff() {
        var configuration = Session.Configuration()
        configuration.tracer = NoOpTracer()
        configuration.metricsFactory = NOOPMetricsHandler.instance
        let session = Session(configuration: configuration)
        XCTAssertFalse(session.telemetry.isEnabled)
        XCTAssertFalse(session.sendEvents().isRecording)
    }
}

extension Array {
    /// The single element, or nil when there are none or several.
    fileprivate var only: Element? { count == 1 ? first : nil }
}
