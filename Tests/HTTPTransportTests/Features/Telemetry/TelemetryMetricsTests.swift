import CoreMetrics
import Foundation
@testable import HTTPTransport
import MetricsTestKit
import XCTest

/// Metrics through swift-metrics: the send duration with OpenTelemetry's dimensions, body
/// bytes, sends under way and the pool's handles. The factory is passed through the session's
/// configuration (no global bootstrap).
final class TelemetryMetricsTests: XCTestCase {
    private func transport(_ metrics: TestMetrics, requestInterceptors: [any HTTPRequestInterceptor] = []) -> HTTPTransport {
        HTTPTransport(session: session(metrics), requestInterceptors: requestInterceptors)
    }

    private func session(_ metrics: TestMetrics, engine: (any HTTPEngine)? = nil) -> Session {
        var configuration = Session.Configuration()
        configuration.metricsFactory = metrics
        return Session(configuration: configuration, engine: engine)
    }

    private var target: [(String, String)] {
        [("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", "\(server.ports["http"] ?? 0)")]
    }

    private let duration = "http.client.request.duration"

    func testDurationIsRecordedOncePerSendWithMethodServerAndStatus() throws {
        let metrics = TestMetrics()
        _ = try sendOK(transport(metrics), HTTPRequest(endpoint: server.http + "/anything/timed"))

        let timer = try metrics.expectTimer(duration, target + [("http.response.status_code", "200")])
        XCTAssertEqual(timer.values.count, 1)
        XCTAssertGreaterThan(timer.values.first ?? 0, 0)
        XCTAssertEqual(metrics.timers(label: duration).count, 1)
    }

    func testErrorStatusDurationCarriesTheStatusAsErrorType() throws {
        let metrics = TestMetrics()
        let result = transport(metrics).send(request: HTTPRequest(endpoint: server.http + "/status/404"))
        XCTAssertEqual(result.error?.httpStatusCode, .notFound)

        let timer = try metrics.expectTimer(duration, target + [("http.response.status_code", "404"), ("error.type", "404")])
        XCTAssertEqual(timer.values.count, 1)
    }

    func testTransportFailureDurationCarriesTheErrorTypeAndNoStatus() throws {
        let metrics = TestMetrics()
        let closed = TestServer.closedPort()
        let result = transport(metrics).send(request: HTTPRequest(endpoint: "http://127.0.0.1:\(closed)/nothing"))
        XCTAssertEqual(result.error?.code, .cannotConnect)

        let dimensions = [("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", "\(closed)"),
                          ("error.type", "cannot_connect")]
        XCTAssertEqual(try metrics.expectTimer(duration, dimensions).values.count, 1)
    }

    func testRedirectedSendIsOneDurationWithTheFinalStatus() throws {
        let metrics = TestMetrics()
        _ = try sendOK(transport(metrics), HTTPRequest(endpoint: server.http + "/redirect/2"))

        XCTAssertEqual(metrics.timers(label: duration).count, 1)
        XCTAssertEqual(try metrics.expectTimer(duration, target + [("http.response.status_code", "200")]).values.count, 1)
    }

    func testBodyBytesSentAndReceivedAreCounted() throws {
        let metrics = TestMetrics()
        let upload = DataUploadHTTPRequest(endpoint: server.http + "/upload", data: Data(repeating: 7, count: 1000))
        let response = try sendOK(transport(metrics), upload)

        let post = [("http.request.method", "POST")] + target.dropFirst()
        XCTAssertEqual(try metrics.expectCounter("http.client.request.body.bytes", post).totalValue, 1000)
        XCTAssertEqual(try metrics.expectCounter("http.client.response.body.bytes", post).totalValue,
                       Int64(response.body?.count ?? -1))
    }

    func testActiveRequestsCountsASendWhileItRuns() throws {
        let metrics = TestMetrics()
        let during = Protected<Double?>(nil)
        let observer = ClosureRequestInterceptor { request in
            during.value = try metrics.expectMeter("http.client.active_requests").lastValue
            return request
        }
        _ = try sendOK(transport(metrics, requestInterceptors: [observer]), HTTPRequest(endpoint: server.http + "/anything/a"))

        XCTAssertEqual(during.value, 1)
        XCTAssertEqual(try metrics.expectMeter("http.client.active_requests").lastValue, 0)
    }

    func testPoolHandlesMoveFromInUseToIdle() throws {
        let metrics = TestMetrics()
        let transport = transport(metrics)
        for _ in 0..<2 { _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything/pool")) }

        let inUse = try metrics.expectMeter("http.client.pool.handles", [("state", "in_use")])
        let idle = try metrics.expectMeter("http.client.pool.handles", [("state", "idle")])
        XCTAssertEqual(inUse.values, [1, 0, 1, 0])
        XCTAssertEqual(idle.lastValue, 1, "the one handle went back to the pool")
        XCTAssertEqual(idle.lastValue.map(Int.init), (transport.session.engine as? CurlEngine)?.idleHandleCount)
    }

    func testClosedSessionTakesItsIdleHandlesOffTheGauge() throws {
        let metrics = TestMetrics()
        do {
            _ = try sendOK(transport(metrics), HTTPRequest(endpoint: server.http + "/anything/closing"))
        }
        let idle = try metrics.expectMeter("http.client.pool.handles", [("state", "idle")])
        XCTAssertEqual(idle.values, [1, 0])
    }

    func testStubEngineReportsNoPoolHandles() throws {
        let metrics = TestMetrics()
        let stub = StubEngine { request in RawResponse(request: request, statusCode: .ok, data: Data()) }
        _ = try sendOK(HTTPTransport(session: session(metrics, engine: stub)), HTTPRequest(endpoint: "http://stub.invalid/"))

        XCTAssertEqual(try metrics.expectMeter("http.client.pool.handles", [("state", "in_use")]).values, [])
        XCTAssertEqual(try metrics.expectMeter("http.client.pool.handles", [("state", "idle")]).values, [])
        XCTAssertEqual(metrics.timers(label: duration).count, 1, "the send itself is still timed")
    }

    func testSendThatNeverHasARequestRecordsNothing() throws {
        let metrics = TestMetrics()
        let result = transport(metrics).send(request: HTTPRequest(endpoint: "not a url"))
        XCTAssertEqual(result.error?.code, .invalidURL)

        XCTAssertTrue(metrics.timers.isEmpty)
        XCTAssertEqual(try metrics.expectMeter("http.client.active_requests").values, [])
    }
}
