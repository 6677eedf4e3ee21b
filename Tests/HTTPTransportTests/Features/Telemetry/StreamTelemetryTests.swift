import CoreMetrics
import Foundation
@testable import HTTPTransport
import InMemoryTracing
import MetricsTestKit
import Tracing
import XCTest

/// An async stream's head answers its send's steps while the body goes on: its span and its
/// metrics end with the body (its bytes, a failure mid-body), not at the head.
final class StreamTelemetryTests: XCTestCase {
    private func transport(tracer: InMemoryTracer, metrics: TestMetrics) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.tracer = tracer
        configuration.metricsFactory = metrics
        return HTTPTransport(session: Session(configuration: configuration))
    }

    private var target: [(String, String)] {
        [("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", "\(server.ports["http"] ?? 0)")]
    }

    func testAStreamsSpanAndMetricsEndWithItsBodyAndCountItsBytes() async throws {
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        let size = 300_000
        let stream = try await transport(tracer: tracer, metrics: metrics).stream(HTTPRequest(endpoint: server.http + "/bytes/\(size)"))
        var read = 0
        for try await chunk in stream.body { read += chunk.count }
        XCTAssertEqual(read, size)
        await stream.channel.awaitTransferEnd()

        XCTAssertEqual(tracer.finishedSpans.count, 1)
        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertEqual(span.attributes.get("http.response.status_code"), .int64(200))
        XCTAssertNil(span.attributes.get("error.type"))
        let timer = try metrics.expectTimer("http.client.request.duration", target + [("http.response.status_code", "200")])
        XCTAssertEqual(timer.values.count, 1)
        let received = try metrics.expectCounter("http.client.response.body.bytes", target)
        XCTAssertEqual(received.totalValue, Int64(size), "the body's bytes, not only the head's")
    }

    func testAStreamWhoseBodyFailsAfterItsHeadRecordsTheFailure() async throws {
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        // (Its head announces 10 bytes; one comes, then the connection closes.)
        let stream = try await transport(tracer: tracer, metrics: metrics).stream(HTTPRequest(endpoint: server.http + "/stall?seconds=0.2"))
        XCTAssertTrue(tracer.finishedSpans.isEmpty, "the span ended at the head")
        do {
            for try await _ in stream.body {}
            XCTFail("a body cut short ended normally")
        } catch {
            XCTAssertNotEqual(error.code, .cancelled)
        }
        await stream.channel.awaitTransferEnd()

        XCTAssertEqual(tracer.finishedSpans.count, 1)
        let span = try XCTUnwrap(tracer.finishedSpans.first)
        XCTAssertNotNil(span.attributes.get("error.type"), "the body's failure is the span's")
        XCTAssertEqual(span.status?.code, .error)
        XCTAssertEqual(metrics.timers(label: "http.client.request.duration").count, 1)
        let timer = try XCTUnwrap(metrics.timers(label: "http.client.request.duration").first)
        XCTAssertEqual(timer.values.count, 1)
        XCTAssertTrue(timer.dimensions.contains { $0.0 == "error.type" }, "\(timer.dimensions)")
    }
}
