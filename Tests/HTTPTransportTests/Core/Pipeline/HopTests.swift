import Foundation
@testable import HTTPTransport
import XCTest

/// `Hop` on its own: how hops count, which origin they are judged against, what a hop that
/// crosses origins loses before and after its interceptors, and the exchange's one deadline.
final class HopTests: XCTestCase {
    private func request(_ url: String, timeout: TimeInterval = 30) throws -> RawRequest {
        var request = RawRequest(url: try XCTUnwrap(URL(string: url)), timeout: timeout)
        request.headers["Cookie"] = "session=1"
        request.headers["Authorization"] = "Bearer secret"
        request.headers["X-Api-Key"] = "key"
        request.headers["X-Trace"] = "t"
        return request
    }

    /// A first hop that started `secondsAgo` with a time-out of `timeout` seconds.
    private func first(_ url: String, timeout: TimeInterval = 10, secondsAgo: Double = 0) throws -> Hop {
        var hop = Hop(first: try request(url, timeout: timeout))
        hop.started = Hop.clock - Int64(secondsAgo * 1_000_000)
        hop.firstTimeout = timeout
        return hop
    }

    private func names(_ request: RawRequest) -> [String] {
        ["Cookie", "Authorization", "X-Api-Key", "X-Trace"].filter { request.headers[$0] != nil }
    }

    func testTheFirstHopIsNoRedirectAndKeepsEverything() throws {
        let hop = try first("http://a.test/start", secondsAgo: 60)
        XCTAssertEqual(hop.redirects, 0)
        XCTAssertEqual(hop.firstURL.absoluteString, "http://a.test/start")
        XCTAssertFalse(hop.crossesOrigin)
        var request = hop.request
        XCTAssertNoThrow(try hop.prepareForInterceptors(&request), "its own time-out is libcurl's to enforce")
        XCTAssertNoThrow(try hop.restrict(&request, credentialHeaders: ["Authorization", "X-Api-Key"]))
        XCTAssertEqual(names(request), ["Cookie", "Authorization", "X-Api-Key", "X-Trace"])
        XCTAssertEqual(request.timeout, 10)
    }

    func testEachNextHopCountsAndRemembersTheFirstURLAndStart() throws {
        let start = try first("http://a.test/start")
        let third = start.next(try request("http://b.test/2")).next(try request("http://c.test/3"))
        XCTAssertEqual(third.redirects, 2)
        XCTAssertEqual(third.firstURL.absoluteString, "http://a.test/start")
        XCTAssertEqual(third.started, start.started)
        XCTAssertEqual(third.firstTimeout, 10)
    }

    func testCrossingIsJudgedAgainstTheFirstHopsOriginNotThePreviousOne() throws {
        let start = try first("http://a.test/start")
        let away = start.next(try request("http://b.test/elsewhere"))
        let back = away.next(try request("HTTP://A.TEST:80/back"))
        XCTAssertTrue(away.crossesOrigin)
        XCTAssertFalse(back.crossesOrigin, "the same origin, written differently")
        for other in ["https://a.test/start", "http://a.test:8080/start", "http://www.a.test/start"] {
            XCTAssertTrue(start.next(try request(other)).crossesOrigin, other)
        }
    }

    func testACrossOriginHopLosesCookiesBeforeItsInterceptorsAndCredentialsAfterThem() throws {
        let hop = try first("http://a.test/start").next(try request("http://b.test/next"))
        var request = hop.request
        try hop.prepareForInterceptors(&request)
        XCTAssertEqual(names(request), ["Authorization", "X-Api-Key", "X-Trace"], "cookies for the hop's URL come from the jar")
        request.headers["Cookie"] = "b=1"  // what the hop's own interceptors add
        try hop.restrict(&request, credentialHeaders: ["Authorization", "X-Api-Key"])
        XCTAssertEqual(names(request), ["Cookie", "X-Trace"])
    }

    func testASameOriginHopKeepsCookiesAndCredentials() throws {
        let hop = try first("http://a.test/start").next(try request("http://a.test/next"))
        var request = hop.request
        try hop.prepareForInterceptors(&request)
        try hop.restrict(&request, credentialHeaders: ["Authorization", "X-Api-Key"])
        XCTAssertEqual(names(request), ["Cookie", "Authorization", "X-Api-Key", "X-Trace"])
    }

    func testARedirectHopGetsWhatIsLeftOfTheExchangesTimeOut() throws {
        let hop = try first("http://a.test/start", timeout: 10, secondsAgo: 4).next(try request("http://a.test/next", timeout: 30))
        var request = hop.request
        try hop.prepareForInterceptors(&request)
        XCTAssertLessThanOrEqual(request.timeout, 6)
        XCTAssertGreaterThan(request.timeout, 5, "4 s of 10 spent (a slow machine may take a second more)")
        request.timeout = 60  // an interceptor asking for more
        try hop.restrict(&request, credentialHeaders: [])
        XCTAssertLessThanOrEqual(request.timeout, 6, "it cannot extend the exchange")
        request.timeout = 2
        try hop.restrict(&request, credentialHeaders: [])
        XCTAssertEqual(request.timeout, 2, "a shorter one of its own stays")
    }

    func testAHopPastTheDeadlineFailsWithTimeOutNamingTheRedirects() throws {
        let hop = try first("http://a.test/start", timeout: 10, secondsAgo: 11)
            .next(try request("http://a.test/2")).next(try request("http://b.test/3"))
        var request = hop.request
        XCTAssertThrowsError(try hop.prepareForInterceptors(&request)) { error in
            let failure = error as? HTTPTransportError
            XCTAssertEqual(failure?.code, .timeout)
            XCTAssertEqual(failure?.url, "http://b.test/3")
            XCTAssertEqual(failure?.message,
                           "The request timed out after 2 redirect(s): its time-out covers the whole exchange, every hop included.")
        }
        XCTAssertThrowsError(try hop.restrict(&request, credentialHeaders: []))
    }
}
