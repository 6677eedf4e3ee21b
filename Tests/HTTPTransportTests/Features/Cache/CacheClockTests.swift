import Foundation
@testable import HTTPTransport
import XCTest

/// The cache inside a real pipeline, with a clock the test moves and a scripted engine, for
/// what a server cannot easily be made to do: time passing, failures while revalidating, a
/// `304` about another representation.
final class CacheClockTests: XCTestCase {
    private let endpoint = "http://api.test/config"

    /// Answers with the scripted responses in order and records every request it gets.
    private final class ScriptedEngine: HTTPEngine {
        private let script: Protected<[(RawRequest) -> RawResponse]>
        let requests = Protected<[RawRequest]>([])

        init(_ script: [(RawRequest) -> RawResponse]) { self.script = Protected(script) }

        func execute(_ request: RawRequest, control: TransferControl) -> RawResponse {
            requests.withLock { $0.append(request) }
            let next = script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            return next?(request) ?? RawResponse(request: request, error: HTTPTransportError(code: .other, message: "script ended"))
        }
    }

    private func ok(_ headers: HTTPHeaders, _ body: String) -> (RawRequest) -> RawResponse {
        { RawResponse(request: $0, statusCode: .ok, headers: headers, data: Data(body.utf8)) }
    }

    private func status(_ code: HTTPStatusCode, _ headers: HTTPHeaders = [:]) -> (RawRequest) -> RawResponse {
        { RawResponse(request: $0, statusCode: code, headers: headers, data: Data()) }
    }

    private func transport(_ engine: ScriptedEngine, clock: Protected<Double>) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.cache = HTTPCache(directory: nil, maxBytes: 1 << 20, clock: { clock.value })
        return HTTPTransport(session: Session(configuration: configuration, engine: engine))
    }

    private func send(_ transport: HTTPTransport) -> HTTPTransport.Result {
        transport.send(request: HTTPRequest(endpoint: endpoint))
    }

    func testAResponseIsServedUntilItsLifetimeEndsAndThenRevalidated() throws {
        let clock = Protected(1_800_000_000.0)
        let engine = ScriptedEngine([ok(["Cache-Control": "max-age=60", "ETag": "\"v1\""], "one"),
                                     status(.notModified, ["ETag": "\"v1\"", "Cache-Control": "max-age=60"])])
        let transport = transport(engine, clock: clock)
        XCTAssertEqual(try send(transport).get().metrics.cacheStatus, .miss)
        clock.value += 59
        let hit = try send(transport).get()
        XCTAssertEqual(hit.metrics.cacheStatus, .hit)
        XCTAssertEqual(hit.header(named: "Age"), "59")
        clock.value += 2
        let revalidated = try send(transport).get()
        XCTAssertEqual(revalidated.metrics.cacheStatus, .revalidated)
        XCTAssertEqual(revalidated.getString(), "one")
        XCTAssertEqual(engine.requests.value.last?.value(forHTTPHeaderField: "If-None-Match"), "\"v1\"")
        // The 304 started a new lifetime.
        clock.value += 30
        XCTAssertEqual(try send(transport).get().metrics.cacheStatus, .hit)
        XCTAssertEqual(engine.requests.value.count, 2)
    }

    func testAFailedRevalidationOfMustRevalidateIsAnErrorNotTheStaleResponse() {
        let clock = Protected(1_800_000_000.0)
        let engine = ScriptedEngine([ok(["Cache-Control": "max-age=10, must-revalidate", "ETag": "\"v1\""], "one"),
                                     { RawResponse(request: $0, error: HTTPTransportError(code: .cannotConnect, message: "down")) }])
        let transport = transport(engine, clock: clock)
        _ = send(transport)
        clock.value += 11
        XCTAssertEqual(send(transport).error?.code, .cannotConnect)
    }

    func testAServerErrorWhileRevalidatingKeepsTheStoredResponse() throws {
        let clock = Protected(1_800_000_000.0)
        let engine = ScriptedEngine([ok(["Cache-Control": "max-age=10", "ETag": "\"v1\""], "one"),
                                     status(.serviceUnavailable),
                                     status(.notModified, ["ETag": "\"v1\""])])
        let transport = transport(engine, clock: clock)
        _ = send(transport)
        clock.value += 11
        XCTAssertEqual(send(transport).error?.httpStatusCode, .serviceUnavailable)
        let revalidated = try send(transport).get()
        XCTAssertEqual(revalidated.metrics.cacheStatus, .revalidated)
        XCTAssertEqual(revalidated.getString(), "one")
    }

    func testA304AboutAnotherRepresentationFetchesItAgainPlainly() throws {
        let clock = Protected(1_800_000_000.0)
        let engine = ScriptedEngine([ok(["Cache-Control": "max-age=0", "ETag": "\"v1\""], "one"),
                                     status(.notModified, ["ETag": "\"v2\""]),
                                     ok(["Cache-Control": "max-age=60", "ETag": "\"v2\""], "two")])
        let transport = transport(engine, clock: clock)
        _ = send(transport)
        clock.value += 1
        let fetched = try send(transport).get()
        XCTAssertEqual(fetched.getString(), "two")
        XCTAssertEqual(fetched.metrics.cacheStatus, .miss)
        XCTAssertNil(engine.requests.value.last?.value(forHTTPHeaderField: "If-None-Match"))
        XCTAssertEqual(try send(transport).get().metrics.cacheStatus, .hit)
    }

    func testAnAnswerThatMayNotBeStoredRemovesTheStoredResponse() {
        let clock = Protected(1_800_000_000.0)
        let engine = ScriptedEngine([ok(["Cache-Control": "max-age=10", "ETag": "\"v1\""], "one"),
                                     ok(["Cache-Control": "no-store"], "two")])
        let transport = transport(engine, clock: clock)
        _ = send(transport)
        clock.value += 11
        XCTAssertEqual(send(transport).value?.getString(), "two")
        let cachedOnly = transport.send(request: HTTPRequest(endpoint: endpoint).with(header: "Cache-Control", value: "max-stale, only-if-cached"))
        XCTAssertEqual(cachedOnly.error?.httpStatusCode, .gatewayTimeout)
    }

    func testATransferThatFailsMidwayIsNotStored() {
        let clock = Protected(1_800_000_000.0)
        let engine = ScriptedEngine([
            { RawResponse(request: $0, statusCode: .ok, headers: ["Cache-Control": "max-age=60"], data: Data("par".utf8),
                          error: HTTPTransportError(code: .badResponse, message: "cut off")) },
            ok(["Cache-Control": "max-age=60"], "whole"),
        ])
        let transport = transport(engine, clock: clock)
        XCTAssertEqual(send(transport).error?.code, .badResponse)
        XCTAssertEqual(send(transport).value?.getString(), "whole")
        XCTAssertEqual(engine.requests.value.count, 2)
    }
}
