import Foundation
@testable import HTTPTransport
import XCTest

/// `stale-while-revalidate` (RFC 5861): within the window a stale response is served at once and
/// revalidated in the background, one revalidation per entry at a time.
final class CacheStaleWhileRevalidateTests: XCTestCase {
    private let endpoint = "http://api.test/feed"
    private let start = 1_800_000_000.0

    /// An engine answering the first request with `headers` and body `one`, and every conditional
    /// request with a 304 (fresh for a minute) once the test opens `gate`.
    private final class GatedEngine: HTTPEngine {
        let headers: HTTPHeaders
        let gate = DispatchSemaphore(value: 0)
        let conditionalArrived = DispatchSemaphore(value: 0)
        let requests = Recorder<RawRequest>()

        init(_ headers: HTTPHeaders) { self.headers = headers }

        func execute(_ request: RawRequest, control: TransferControl) -> RawResponse {
            requests.add(request)
            guard request.value(forHTTPHeaderField: "If-None-Match") != nil else {
                return RawResponse(request: request, statusCode: .ok, headers: headers, data: Data("one".utf8))
            }
            conditionalArrived.signal()
            guard gate.wait(timeout: .now() + 10) == .success else {
                return RawResponse(request: request, error: HTTPTransportError(code: .timeout, message: "the test never opened the gate"))
            }
            return RawResponse(request: request, statusCode: .notModified,
                               headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60, stale-while-revalidate=30"])
        }
    }

    private func setUp(_ headers: HTTPHeaders) -> (HTTPTransport, HTTPCache, GatedEngine, Protected<Double>) {
        let clock = Protected(start)
        let cache = HTTPCache(directory: nil, maxBytes: 1 << 20, clock: { clock.value })
        var configuration = Session.Configuration()
        configuration.cache = cache
        let engine = GatedEngine(headers)
        addTeardownBlock {
            engine.gate.signal()
            XCTAssertTrue(cache.waitForBackgroundRevalidations(timeout: 10), "a background revalidation outlived the test")
        }
        return (HTTPTransport(session: Session(configuration: configuration, engine: engine)), cache, engine, clock)
    }

    private func send(_ transport: HTTPTransport) throws -> HTTPResponse {
        try transport.send(request: HTTPRequest(endpoint: endpoint)).get()
    }

    func testAStaleResponseWithinTheWindowIsServedAtOnceAndRevalidatedOnceInTheBackground() throws {
        let (transport, cache, engine, clock) = setUp(["Cache-Control": "max-age=10, stale-while-revalidate=60", "ETag": "\"v1\""])
        XCTAssertEqual(try send(transport).metrics.cacheStatus, .miss)
        clock.value += 30
        // The revalidation is held at the gate: every send meanwhile is served the stale response.
        for _ in 0..<5 {
            let stale = try send(transport)
            XCTAssertEqual(stale.metrics.cacheStatus, .hit)
            XCTAssertEqual(stale.getString(), "one")
            XCTAssertEqual(stale.header(named: "Age"), "30")
        }
        XCTAssertEqual(engine.conditionalArrived.wait(timeout: .now() + 10), .success)
        engine.gate.signal()
        XCTAssertTrue(cache.waitForBackgroundRevalidations(timeout: 10))
        XCTAssertEqual(engine.requests.count, 2, "one revalidation for five stale sends")
        XCTAssertEqual(engine.requests.values.last?.value(forHTTPHeaderField: "If-None-Match"), "\"v1\"")
        // The 304 started a new lifetime: served fresh without a request.
        let fresh = try send(transport)
        XCTAssertEqual(fresh.metrics.cacheStatus, .hit)
        XCTAssertEqual(fresh.header(named: "Age"), "0")
        XCTAssertEqual(engine.requests.count, 2)
    }

    func testPastTheWindowTheResponseIsRevalidatedBeforeItIsServed() throws {
        let (transport, _, engine, clock) = setUp(["Cache-Control": "max-age=10, stale-while-revalidate=60", "ETag": "\"v1\""])
        _ = try send(transport)
        clock.value += 71
        engine.gate.signal()
        XCTAssertEqual(try send(transport).metrics.cacheStatus, .revalidated)
    }

    func testMustRevalidateOrARequestMaxAgeForbidsServingStale() throws {
        let (transport, _, engine, clock) = setUp(["Cache-Control": "max-age=10, stale-while-revalidate=60, must-revalidate",
                                                   "ETag": "\"v1\""])
        _ = try send(transport)
        clock.value += 30
        engine.gate.signal()
        XCTAssertEqual(try send(transport).metrics.cacheStatus, .revalidated)

        let (other, _, otherEngine, otherClock) = setUp(["Cache-Control": "max-age=10, stale-while-revalidate=60", "ETag": "\"v1\""])
        _ = try send(other)
        otherClock.value += 30
        otherEngine.gate.signal()
        let request = HTTPRequest(endpoint: endpoint).with(header: "Cache-Control", value: "max-age=20")
        XCTAssertEqual(try other.send(request: request).get().metrics.cacheStatus, .revalidated)
    }

    func testTheTestServersResourceIsRevalidatedInTheBackground() throws {
        // Age 5 with max-age 1: stale on arrival, within its window.
        let resource = CachedResource(["cc": "max-age=1, stale-while-revalidate=600", "etag": "1", "age": "5"])
        let cache = HTTPCache()
        let transport = cachingTransport(cache)
        _ = try sendOK(transport, resource.request)
        let stale = try sendOK(transport, resource.request)
        XCTAssertEqual(stale.metrics.cacheStatus, .hit)
        XCTAssertEqual(try cacheBody(stale)["served"] as? Int, 1)
        XCTAssertTrue(cache.waitForBackgroundRevalidations(timeout: 10))
        let record = try resource.record()
        XCTAssertEqual(record.count, 2)
        XCTAssertEqual(record.requests.last?["if_none_match"] as? String, "\"\(resource.key)-v1\"")
    }

    func testABackgroundRevalidationGoesThroughTheSessionsCircuitBreaker() throws {
        let resource = CachedResource(["cc": "max-age=1, stale-while-revalidate=600", "etag": "1", "age": "5"])
        let cache = HTTPCache()
        var configuration = Session.Configuration()
        configuration.cache = cache
        configuration.circuitBreaker = CircuitBreaker(failureThreshold: 1, openDuration: 600)
        let transport = HTTPTransport(session: Session(configuration: configuration))
        _ = try sendOK(transport, resource.request)
        // A 503 from the same origin opens its circuit.
        XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: server.http + "/status/503")).error?.httpStatusCode,
                       .serviceUnavailable)
        let stale = try sendOK(transport, resource.request)
        XCTAssertEqual(stale.metrics.cacheStatus, .hit)
        XCTAssertTrue(cache.waitForBackgroundRevalidations(timeout: 10))
        XCTAssertEqual(try resource.count(), 1, "the open circuit let the background revalidation through")
    }
}
