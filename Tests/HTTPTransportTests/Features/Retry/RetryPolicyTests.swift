import Foundation
import HTTPTransport
import XCTest

/// `RetryPolicy` against the local server's `/flaky` route (fails `fail` times, then 200), and
/// its pure decisions.
final class RetryPolicyTests: XCTestCase {
    // MARK: Against the server

    func testFlakySucceedsOnTheThirdAttempt() throws {
        let retries = RetryLog()
        let policy = RetryPolicy(baseDelay: 0.01, jitter: { $0.upperBound }, onRetry: retries.record)
        let key = UUID().uuidString
        let response = try sendOK(HTTPTransport(retrier: policy), HTTPRequest(endpoint: flaky(key, fail: 2)))
        XCTAssertEqual(try response.getJSONDictionary()?["attempts"] as? Int, 3)
        XCTAssertEqual(retries.attempts, [1, 2])
        XCTAssertEqual(retries.delays, [0.01, 0.02], "exponential back-off, jitter at its upper bound")
        XCTAssertEqual(retries.statuses, [503, 503])
        XCTAssertEqual(try flakyCount(key), 3)
    }

    func testRetryAfterIsHonoured() throws {
        let retries = RetryLog()
        let policy = RetryPolicy(baseDelay: 0.01, jitter: { $0.upperBound }, onRetry: retries.record)
        let key = UUID().uuidString
        let started = ContinuousClock.now
        let response = try sendOK(HTTPTransport(retrier: policy), HTTPRequest(endpoint: flaky(key, fail: 1) + "&retry_after=1"))
        XCTAssertEqual(try response.getJSONDictionary()?["attempts"] as? Int, 2)
        XCTAssertEqual(retries.delays, [1.0], "Retry-After: 1 replaces the 0.01 s back-off")
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(900))
    }

    func testRetryAfterBeyondMaxDelayReturnsTheFailure() throws {
        let retries = RetryLog()
        let policy = RetryPolicy(maxDelay: 5, onRetry: retries.record)
        let key = UUID().uuidString
        let started = ContinuousClock.now
        let result = HTTPTransport(retrier: policy).send(request: HTTPRequest(endpoint: flaky(key, fail: 1) + "&retry_after=120"))
        XCTAssertEqual(result.error?.httpStatusCode, .serviceUnavailable)
        XCTAssertEqual(result.error?.responseHeaders["Retry-After"], "120")
        XCTAssertTrue(retries.attempts.isEmpty)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2))
        XCTAssertEqual(try flakyCount(key), 1)
    }

    func testPOSTIsNotRetriedByDefault() throws {
        let retries = RetryLog()
        let key = UUID().uuidString
        let transport = HTTPTransport(retrier: RetryPolicy(baseDelay: 0, onRetry: retries.record))
        let result = transport.send(request: HTTPRequest(httpMethod: .post, endpoint: flaky(key, fail: 1)))
        XCTAssertEqual(result.error?.httpStatusCode, .serviceUnavailable)
        XCTAssertTrue(retries.attempts.isEmpty)
        XCTAssertEqual(try flakyCount(key), 1)

        let patchKey = UUID().uuidString
        XCTAssertFalse(transport.send(request: HTTPRequest(httpMethod: .patch, endpoint: flaky(patchKey, fail: 1))).isSuccess)
        XCTAssertEqual(try flakyCount(patchKey), 1)
    }

    func testPOSTIsRetriedWhenConfigured() throws {
        let key = UUID().uuidString
        let policy = RetryPolicy(retriesNonIdempotentRequests: true, baseDelay: 0)
        let request = HTTPRequest(httpMethod: .post, endpoint: flaky(key, fail: 1))
            .with(parameters: ["a": 1], encoding: .json)
        let response = try sendOK(HTTPTransport(retrier: policy), request)
        XCTAssertEqual(try response.getJSONDictionary()?["attempts"] as? Int, 2)
    }

    func testAttemptsAreBounded() throws {
        let retries = RetryLog()
        let key = UUID().uuidString
        let policy = RetryPolicy(maxAttempts: 4, baseDelay: 0.001, onRetry: retries.record)
        let result = HTTPTransport(retrier: policy).send(request: HTTPRequest(endpoint: flaky(key, fail: 100, status: 502)))
        XCTAssertEqual(result.error?.httpStatusCode, .badGateway)
        XCTAssertEqual(retries.attempts, [1, 2, 3])
        XCTAssertEqual(try flakyCount(key), 4)
    }

    func testTotalTimeBudgetIsRespected() throws {
        let retries = RetryLog()
        let key = UUID().uuidString
        // Delays 0.3, 0.6, …: the second would end past the 0.8 s budget.
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: 0.3, maxTotalTime: 0.8, jitter: { $0.upperBound },
                                 onRetry: retries.record)
        let started = ContinuousClock.now
        let result = HTTPTransport(retrier: policy).send(request: HTTPRequest(endpoint: flaky(key, fail: 100)))
        XCTAssertEqual(result.error?.httpStatusCode, .serviceUnavailable)
        XCTAssertEqual(retries.delays, [0.3])
        XCTAssertEqual(try flakyCount(key), 2)
        XCTAssertLessThan(ContinuousClock.now - started, .milliseconds(800))
    }

    func testNonRetryableStatusIsNotRetried() throws {
        let retries = RetryLog()
        let transport = HTTPTransport(retrier: RetryPolicy(baseDelay: 0, onRetry: retries.record))
        XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: server.http + "/status/404")).error?.httpStatusCode, .notFound)
        XCTAssertTrue(retries.attempts.isEmpty)
    }

    func testConnectionRefusedIsRetriedEvenForPOST() throws {
        let retries = RetryLog()
        let transport = HTTPTransport(retrier: RetryPolicy(baseDelay: 0.001, onRetry: retries.record))
        let request = HTTPRequest(httpMethod: .post, endpoint: "http://127.0.0.1:\(TestServer.closedPort())/x")
        XCTAssertEqual(transport.send(request: request).error?.code, .cannotConnect)
        XCTAssertEqual(retries.attempts, [1, 2], "nothing was sent, so POST may be tried again")
    }

    // MARK: Pure decisions

    func testBackoffDoublesUpToMaxDelay() {
        let policy = RetryPolicy(baseDelay: 0.2, maxDelay: 10)
        XCTAssertEqual((1...8).map { policy.backoff(afterAttempt: $0) }, [0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 10, 10])
        XCTAssertEqual(policy.backoff(afterAttempt: 10_000), 10)
    }

    func testJitterPicksWithinZeroToBackoff() throws {
        let ranges = Protected<[ClosedRange<Double>]>([])
        let policy = RetryPolicy(maxAttempts: 5, jitter: { range in
            ranges.withLock { $0.append(range) }
            return range.lowerBound
        })
        for attempt in 1...3 {
            XCTAssertEqual(policy.delay(for: context(status: 503, attempt: attempt), elapsed: 0), 0)
        }
        XCTAssertEqual(ranges.withLock { $0 }, [0...0.2, 0...0.4, 0...0.8])
    }

    func testDelayDecisions() throws {
        let policy = RetryPolicy(maxAttempts: 3, maxDelay: 10, maxTotalTime: 60, jitter: { $0.upperBound },
                                 now: { Date(timeIntervalSince1970: 784_111_747) }) // Sun, 06 Nov 1994 08:49:07 GMT
        XCTAssertEqual(policy.delay(for: context(status: 503, attempt: 1), elapsed: 0), 0.2)
        XCTAssertNil(policy.delay(for: context(status: 503, attempt: 3), elapsed: 0), "attempts used up")
        XCTAssertNil(policy.delay(for: context(status: 400, attempt: 1), elapsed: 0), "not a retryable status")
        XCTAssertNil(policy.delay(for: context(status: 503, attempt: 1, method: .post), elapsed: 0), "POST")
        XCTAssertEqual(policy.delay(for: context(status: 429, attempt: 1, retryAfter: "7"), elapsed: 0), 7)
        XCTAssertEqual(policy.delay(for: context(status: 503, attempt: 1, retryAfter: "Sun, 06 Nov 1994 08:49:12 GMT"),
                                    elapsed: 0), 5)
        XCTAssertNil(policy.delay(for: context(status: 503, attempt: 1, retryAfter: "11"), elapsed: 0), "beyond maxDelay")
        XCTAssertNil(policy.delay(for: context(status: 503, attempt: 1, retryAfter: "5"), elapsed: 56), "beyond the budget")
        XCTAssertEqual(policy.delay(for: context(status: 503, attempt: 1, retryAfter: "5"), elapsed: 54), 5)
        XCTAssertEqual(policy.delay(for: context(status: 503, attempt: 1, retryAfter: "soon"), elapsed: 0), 0.2,
                       "an unreadable Retry-After falls back to back-off")
        XCTAssertEqual(policy.delay(for: context(code: .timeout, attempt: 1), elapsed: 0), 0.2)
        XCTAssertNil(policy.delay(for: context(code: .timeout, attempt: 1, method: .post), elapsed: 0))
        XCTAssertNil(policy.delay(for: context(code: .nameResolution, attempt: 1), elapsed: 0))
        XCTAssertNil(policy.delay(for: context(code: .tlsFailure, attempt: 1), elapsed: 0))
        XCTAssertEqual(policy.delay(for: context(code: .cannotConnect, attempt: 1, method: .post), elapsed: 0), 0.2)

        let ignoring = RetryPolicy(honorsRetryAfter: false, jitter: { $0.upperBound })
        XCTAssertEqual(ignoring.delay(for: context(status: 503, attempt: 1, retryAfter: "11"), elapsed: 0), 0.2)
    }

    func testRetryAfterParsing() {
        let now = Date(timeIntervalSince1970: 784_111_747) // Sun, 06 Nov 1994 08:49:07 GMT
        XCTAssertEqual(RetryPolicy.retryAfterDelay("120", now: now), 120)
        XCTAssertEqual(RetryPolicy.retryAfterDelay(" 0 ", now: now), 0)
        XCTAssertEqual(RetryPolicy.retryAfterDelay("Sun, 06 Nov 1994 08:49:37 GMT", now: now), 30)
        XCTAssertEqual(RetryPolicy.retryAfterDelay("Sunday, 06-Nov-94 08:49:37 GMT", now: now), 30)
        XCTAssertEqual(RetryPolicy.retryAfterDelay("Sun Nov  6 08:49:37 1994", now: now), 30)
        XCTAssertEqual(RetryPolicy.retryAfterDelay("Sun, 06 Nov 1994 08:00:00 GMT", now: now), 0, "a past date means now")
        XCTAssertNil(RetryPolicy.retryAfterDelay("-5", now: now))
        XCTAssertNil(RetryPolicy.retryAfterDelay("tomorrow", now: now))
        XCTAssertNil(RetryPolicy.retryAfterDelay("", now: now))
    }

    // MARK: Helpers

    private func flaky(_ key: String, fail: Int, status: Int = 503) -> String {
        server.http + "/flaky?key=\(key)&fail=\(fail)&status=\(status)"
    }

    private func flakyCount(_ key: String) throws -> Int? {
        try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/flaky/count?key=\(key)"))
            .getJSONDictionary()?["count"] as? Int
    }

    private func context(status: Int? = nil, code: HTTPTransportError.Code = .httpStatus, attempt: Int,
                         method: HTTPRequest.HTTPMethod = .get, retryAfter: String? = nil) -> RetryContext {
        let url = URL(fileURLWithPath: "/").deletingLastPathComponent()
        let request = RawRequest(method: method, url: URL(string: "http://127.0.0.1:1/x") ?? url)
        var headers = HTTPHeaders()
        if let retryAfter { headers.add("Retry-After", retryAfter) }
        let error = HTTPTransportError(code: status == nil ? code : .httpStatus, message: "failed",
                                       httpStatusCode: status.map(HTTPStatusCode.init(rawValue:)), responseHeaders: headers)
        let now = ContinuousClock.now
        return RetryContext(request: request, sentRequest: request, error: error, attempt: attempt,
                            attemptStarted: now, firstAttemptStarted: now)
    }
}

/// What `onRetry` saw.
private final class RetryLog: Sendable {
    private let entries = Protected<[(attempt: Int, delay: TimeInterval, status: Int?)]>([])

    var record: @Sendable (RetryContext, TimeInterval) -> Void {
        { [self] context, delay in
            entries.withLock { $0.append((context.attempt, delay, context.error.httpStatusCode?.rawValue)) }
        }
    }

    var attempts: [Int] { entries.withLock { $0.map(\.attempt) } }
    var delays: [TimeInterval] { entries.withLock { $0.map(\.delay) } }
    var statuses: [Int?] { entries.withLock { $0.map(\.status) } }
}
