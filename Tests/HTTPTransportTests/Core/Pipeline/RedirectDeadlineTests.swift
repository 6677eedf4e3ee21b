import Foundation
import HTTPTransport
import XCTest

/// A request's `timeout` is one deadline for the whole exchange, every redirect hop included,
/// against the server's `/hoptests/slow-redirect/<n>` chain (each link sleeps, then redirects to
/// the next; the server counts the links it was asked for under a key).
final class RedirectDeadlineTests: XCTestCase {
    private func chain(links: Int, delay: Double, key: String) -> String {
        server.http + "/hoptests/slow-redirect/\(links)?delay=\(delay)&key=\(key)"
    }

    private func hopsSeen(key: String) throws -> Int {
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/hoptests/slow-redirect-count?key=\(key)"))
        return try XCTUnwrap(try response.getJSONDictionary()?["count"] as? Int)
    }

    func testSlowRedirectChainFailsWithTimeoutWhenTheWholeExchangeRunsOut() throws {
        // Eight links of 1.5 s each: every hop alone fits in 2 s, the exchange does not.
        let key = UUID().uuidString
        let started = ContinuousClock.now
        let result = HTTPTransport().send(request: HTTPRequest(endpoint: chain(links: 8, delay: 1.5, key: key), timeout: 2))
        let elapsed = ContinuousClock.now - started
        XCTAssertEqual(result.error?.code, .timeout, "\(String(describing: result.error))")
        XCTAssertLessThan(elapsed, .milliseconds(3500), "the time-out is one deadline, not one per hop")
        XCTAssertLessThanOrEqual(try hopsSeen(key: key), 2)
    }

    func testRedirectChainThatFitsInTheTimeOutSucceeds() throws {
        let key = UUID().uuidString
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: chain(links: 3, delay: 0.3, key: key), timeout: 5))
        XCTAssertEqual(response.metrics.redirectCount, 3)
        XCTAssertEqual(try echo(response)["path"] as? String, "/hoptests/slow-redirect/0")
        XCTAssertEqual(try hopsSeen(key: key), 4)
    }

    func testAHopsInterceptorCannotExtendTheExchangesDeadline() throws {
        // The first hop's time-out (as its interceptors leave it) sets the deadline; a later
        // hop's interceptor that asks for more gets no more than what is left.
        let key = UUID().uuidString
        let generous = ClosureRequestInterceptor { request in
            var request = request
            if request.redirectedFrom != nil { request.timeout = 30 }
            return request
        }
        // A quick first hop, then a link that takes 4 s.
        let start = redirect(from: server.http, to: chain(links: 1, delay: 4, key: key))
        let started = ContinuousClock.now
        let result = HTTPTransport(requestInterceptors: [generous]).send(request: HTTPRequest(endpoint: start, timeout: 2))
        XCTAssertEqual(result.error?.code, .timeout, "\(String(describing: result.error))")
        XCTAssertLessThan(ContinuousClock.now - started, .milliseconds(3500))
        XCTAssertEqual(try hopsSeen(key: key), 1)
    }

    func testAHopWithNothingLeftFailsBeforeItIsSent() throws {
        // An interceptor that takes the rest of the time on the second hop: that hop must not
        // start (libcurl would read a zero time-out as none).
        let key = UUID().uuidString
        let slowSecondHop = ClosureRequestInterceptor { request in
            if request.redirectedFrom != nil { Thread.sleep(forTimeInterval: 1.2) }
            return request
        }
        let result = HTTPTransport(requestInterceptors: [slowSecondHop])
            .send(request: HTTPRequest(endpoint: chain(links: 1, delay: 0, key: key), timeout: 1))
        XCTAssertEqual(result.error?.code, .timeout, "\(String(describing: result.error))")
        XCTAssertEqual(try hopsSeen(key: key), 1, "the second hop was sent")
    }
}
