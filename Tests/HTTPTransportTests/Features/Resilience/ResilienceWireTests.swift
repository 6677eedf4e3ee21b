import Foundation
import HTTPTransport
import XCTest

/// The resilience rules on the wire, against the local server's `/resilience/outage` route (an
/// origin failing its first requests, or for its first seconds) and its per-key request log.
final class ResilienceWireTests: XCTestCase {
    private struct Log {
        let times: [Double]
        let keys: [String?]
        let statuses: [Int]
    }

    private func outage(_ key: String, _ query: String) -> String {
        server.http + "/resilience/outage?key=\(key)&" + query
    }

    private func log(_ key: String) throws -> Log {
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/resilience/log?key=\(key)"))
        let json = try XCTUnwrap(try response.getJSONDictionary())
        return Log(times: json["times"] as? [Double] ?? [], keys: (json["keys"] as? [Any] ?? []).map { $0 as? String },
                   statuses: json["statuses"] as? [Int] ?? [])
    }

    private func transport(_ limits: HostLimits? = nil, _ breaker: CircuitBreaker? = nil,
                           retrier: (any HTTPRetrier)? = nil) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.hostLimits = limits
        configuration.circuitBreaker = breaker
        return HTTPTransport(session: Session(configuration: configuration), retrier: retrier)
    }

    func testTheRateSpacesSendsToTheOrigin() throws {
        let key = UUID().uuidString
        let transport = transport(HostLimits(requestsPerSecond: 5, burst: 1))
        for _ in 0..<4 { _ = try sendOK(transport, HTTPRequest(endpoint: outage(key, "fail=0"))) }
        let times = try log(key).times
        XCTAssertEqual(times.count, 4)
        // Tokens 0.2 s apart: the fourth request leaves 0.6 s after the first (a slow arrival of
        // the first one shortens the span a little; without the rate it is a few milliseconds).
        XCTAssertGreaterThan((times.last ?? 0) - (times.first ?? 0), 0.5, "\(times)")
    }

    func testRetryAfterHoldsTheSessionsOtherSendsToTheOrigin() throws {
        let key = UUID().uuidString
        let transport = transport(HostLimits())
        let first = transport.send(request: HTTPRequest(endpoint: outage(key, "fail=1&status=429&retry_after=1")))
        XCTAssertEqual(first.error?.httpStatusCode, .tooManyRequests)
        _ = try sendOK(transport, HTTPRequest(endpoint: outage(key, "fail=1")))
        let log = try log(key)
        XCTAssertEqual(log.statuses, [429, 200])
        XCTAssertGreaterThan(log.times[1] - log.times[0], 0.9, "the second send waited for the Retry-After")
    }

    func testRefusedConnectionsOpenTheCircuit() throws {
        let url = "http://127.0.0.1:\(TestServer.closedPort())/jobs"
        let transport = transport(nil, CircuitBreaker(failureThreshold: 3, openDuration: 60))
        for _ in 0..<3 { XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: url)).error?.code, .cannotConnect) }
        let error = try XCTUnwrap(transport.send(request: HTTPRequest(endpoint: url)).error)
        XCTAssertEqual(error.code, .circuitOpen)
        XCTAssertTrue(error.message.contains("cannot_connect"), error.message)
    }

    func testAPOSTKeepsItsIdempotencyKeyAcrossRetries() throws {
        let key = UUID().uuidString
        let policy = RetryPolicy(baseDelay: 0, idempotencyKeyHeader: "Idempotency-Key")
        _ = try sendOK(HTTPTransport(retrier: policy),
                       HTTPRequest(httpMethod: .post, endpoint: outage(key, "fail=2"), parameters: [HTTPRequestParameters(parameters: ["n": 1], encoding: .json)]))
        let log = try log(key)
        XCTAssertEqual(log.statuses, [503, 503, 200])
        let sent = try XCTUnwrap(log.keys.first ?? nil)
        XCTAssertEqual(log.keys, [sent, sent, sent])
    }

    /// 16 threads keep sending to an origin that fails for its first second: the circuit opens,
    /// the server sees few requests while it is down (one probe at a time), and every thread
    /// gets its answers once it is back.
    func testSixteenThreadsAgainstAnOriginThatFailsThenRecovers() throws {
        let key = UUID().uuidString
        let transport = transport(nil, CircuitBreaker(failureThreshold: 5, openDuration: 0.3))
        let request = HTTPRequest(endpoint: outage(key, "down=1"), timeout: 5)
        let refusals = Protected(0)
        let successes = Protected(0)
        let finished = DispatchGroup()
        for _ in 0..<16 {
            finished.enter()
            Thread.detachNewThread {
                defer { finished.leave() }
                var answered = 0
                for _ in 0..<400 where answered < 3 {  // at most 20 s of sends 50 ms apart
                    let result = transport.send(request: request)
                    if result.isSuccess { answered += 1 }
                    if result.error?.code == .circuitOpen { refusals.withLock { $0 += 1 } }
                    if !result.isSuccess { Thread.sleep(forTimeInterval: 0.05) }  // a worker's pace, not a synchronisation
                }
                successes.withLock { $0 += answered }
            }
        }
        XCTAssertEqual(finished.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(successes.value, 48, "every thread got its three answers after the outage")
        XCTAssertGreaterThan(refusals.value, 0)
        let failed = try log(key).statuses.filter { $0 != 200 }.count
        // Without the breaker, 16 threads 50 ms apart send about 300 requests in that second.
        XCTAssertLessThanOrEqual(failed, 40, "the server saw \(failed) requests while down")
    }
}
