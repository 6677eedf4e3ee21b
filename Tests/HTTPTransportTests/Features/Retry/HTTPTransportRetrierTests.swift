import Foundation
import HTTPTransport
import XCTest

/// `HTTPTransportRetrier` against the server's token routes: `/auth/token` issues a token (and
/// counts issues), `/auth/protected` wants `Authorization: Bearer <token>`, `/auth/expire`
/// forgets the token, `/auth/count` reports how many were issued.
final class HTTPTransportRetrierTests: XCTestCase {
    static let threads = 8

    override func setUpWithError() throws {
        _ = try sendOK(HTTPTransport(), HTTPRequest(httpMethod: .post, endpoint: server.http + "/auth/reset"))
    }

    func testConcurrent401sShareOneRefresh() throws {
        let store = TokenStore()
        let delegate = TokenRefresher(server: server.http, store: store, waitForFailures: Self.threads)
        let retrier = HTTPTransportRetrier(delegate: delegate)
        let transport = HTTPTransport(requestInterceptors: [BearerInterceptor(store: store)], retrier: retrier)

        // A valid token first, then the server forgets it.
        try delegate.refresh()
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/auth/protected"))
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/auth/expire"))
        let issuedBefore = try issued()

        let protectedURL = server.http + "/auth/protected"
        let results = runConcurrently(Self.threads) {
            transport.send(request: HTTPRequest(endpoint: protectedURL))
        }
        for result in results {
            XCTAssertTrue(result.isSuccess, "\(String(describing: result.error))")
            XCTAssertEqual(try result.value?.getJSONDictionary()?["token"] as? String, store.token)
        }
        XCTAssertEqual(delegate.failuresSeen, Self.threads, "every thread got its 401 before the refresh ended")
        XCTAssertEqual(try issued() - issuedBefore, 1, "the server issued exactly one new token")
        XCTAssertEqual(retrier.refreshCount, 1)
        XCTAssertEqual(delegate.refreshes, 2, "the priming refresh and one for all eight threads")
    }

    func testFailedRefreshFailsEveryWaiterWithAClearError() throws {
        let store = TokenStore()
        let delegate = TokenRefresher(server: server.http, store: store, waitForFailures: Self.threads,
                                      tokenPath: "/status/500")
        let retrier = HTTPTransportRetrier(delegate: delegate)
        let transport = HTTPTransport(requestInterceptors: [BearerInterceptor(store: store)], retrier: retrier)

        let protectedURL = server.http + "/auth/protected"
        let results = runConcurrently(Self.threads) {
            transport.send(request: HTTPRequest(endpoint: protectedURL))
        }
        for result in results {
            let error = try XCTUnwrap(result.error)
            XCTAssertEqual(error.code, .other)
            XCTAssertTrue(error.message.hasPrefix("Refreshing credentials failed: "), error.message)
            XCTAssertEqual(error.httpStatusCode, .unauthorized, "the original response is kept")
            XCTAssertEqual(error.responseBodyErrorCode, "token_expired")
            XCTAssertEqual((error.underlyingError as? HTTPTransportError)?.httpStatusCode, .internalServerError)
            XCTAssertEqual((error as NSError).httpStatusCode, .unauthorized)
        }
        XCTAssertEqual(retrier.refreshCount, 1)
        XCTAssertEqual(delegate.refreshes, 1)
        XCTAssertEqual(try issued(), 0)
    }

    func testAttemptStartedBeforeTheLastRefreshRetriesWithoutRefreshing() throws {
        let counter = Protected(0)
        let retrier = HTTPTransportRetrier(delegate: ClosureDelegate { counter.withLock { $0 += 1 } })
        let before = ContinuousClock.now
        guard case .retry = retrier.retry(unauthorized(attemptStarted: before)) else { return XCTFail("no retry") }
        XCTAssertEqual(counter.withLock { $0 }, 1)

        // Started before that refresh ended: its credentials are already new.
        guard case .retry(_, let delay) = retrier.retry(unauthorized(attemptStarted: before)) else { return XCTFail("no retry") }
        XCTAssertEqual(delay, 0)
        XCTAssertEqual(counter.withLock { $0 }, 1)

        // Started after it: the new credentials failed too, so refresh again.
        guard case .retry = retrier.retry(unauthorized(attemptStarted: .now)) else { return XCTFail("no retry") }
        XCTAssertEqual(counter.withLock { $0 }, 2)
        XCTAssertEqual(retrier.refreshCount, 2)

        // The last attempt, and other statuses, are not retried.
        guard case .doNotRetry = retrier.retry(unauthorized(attemptStarted: .now, attempt: 2)) else { return XCTFail() }
        guard case .doNotRetry = retrier.retry(unauthorized(attemptStarted: .now, status: 403)) else { return XCTFail() }
        XCTAssertEqual(counter.withLock { $0 }, 2)
    }

    func testAttemptsAreBoundedWhenRefreshDoesNotHelp() throws {
        let calls = Protected(0)
        let retrier = HTTPTransportRetrier(delegate: ClosureDelegate { calls.withLock { $0 += 1 } })
        let transport = HTTPTransport(retrier: retrier)
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/auth/protected"))
        XCTAssertEqual(result.error?.httpStatusCode, .unauthorized)
        XCTAssertEqual(result.error?.code, .httpStatus)
        XCTAssertEqual(calls.withLock { $0 }, 1, "one refresh, one retry, then the 401 is returned")
    }

    func testRefreshThatSendsThroughTheSameTransportDoesNotDeadlock() throws {
        let box = Protected<HTTPTransport?>(nil)
        let protectedURL = server.http + "/auth/protected"
        let retrier = HTTPTransportRetrier(delegate: ClosureDelegate {
            // Its own 401 is not retried (that would wait for itself).
            guard let transport = box.withLock({ $0 }) else { return }
            _ = try transport.send(request: HTTPRequest(endpoint: protectedURL)).get()
        })
        let transport = HTTPTransport(retrier: retrier)
        box.withLock { $0 = transport }
        // The box holds the transport that holds the retrier that holds the box: break the cycle.
        defer { box.withLock { $0 = nil } }
        let error = try XCTUnwrap(transport.send(request: HTTPRequest(endpoint: protectedURL)).error)
        XCTAssertTrue(error.message.hasPrefix("Refreshing credentials failed: "), error.message)
        XCTAssertEqual(retrier.refreshCount, 1)
    }

    // MARK: Helpers

    private func issued() throws -> Int {
        try XCTUnwrap(try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/auth/count"))
            .getJSONDictionary()?["issued"] as? Int)
    }

    private func unauthorized(attemptStarted: ContinuousClock.Instant, attempt: Int = 1, status: Int = 401) -> RetryContext {
        let request = RawRequest(url: URL(fileURLWithPath: "/"))
        let error = HTTPTransportError(code: .httpStatus, message: "401", httpStatusCode: HTTPStatusCode(rawValue: status))
        return RetryContext(request: request, sentRequest: request, error: error, attempt: attempt,
                            attemptStarted: attemptStarted, firstAttemptStarted: attemptStarted)
    }

    /// Runs `body` on `count` threads released together; returns their results in order.
    private func runConcurrently(_ count: Int, _ body: @escaping @Sendable () -> HTTPTransport.Result) -> [HTTPTransport.Result] {
        let results = Protected<[Int: HTTPTransport.Result]>([:])
        let ready = DispatchGroup(), done = DispatchGroup()
        let gate = DispatchSemaphore(value: 0)
        for index in 0..<count {
            ready.enter()
            done.enter()
            let thread = Thread {
                ready.leave()
                gate.wait()
                let result = body()
                results.withLock { $0[index] = result }
                done.leave()
            }
            thread.start()
        }
        ready.wait()
        for _ in 0..<count { gate.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        return results.withLock { dictionary in (0..<count).compactMap { dictionary[$0] } }
    }
}

/// The current token, shared by threads.
private final class TokenStore: Sendable {
    private let value = Protected<String?>(nil)
    var token: String? { value.withLock { $0 } }
    func set(_ token: String?) { value.withLock { $0 = token } }
}

/// Sends `Authorization: Bearer <token>` when there is a token.
private struct BearerInterceptor: HTTPRequestInterceptor {
    let store: TokenStore
    func intercept(request: RawRequest) throws -> RawRequest {
        guard let token = store.token else { return request }
        var request = request
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }
}

/// Refreshes by POSTing the token route. To make the threads' failures overlap for certain,
/// `refresh()` first waits (on a condition, with a time limit) until `waitForFailures` of them
/// have asked `shouldRetry`.
private final class TokenRefresher: HTTPTransportRetrierDelegate {
    private let tokenURL: String
    private let store: TokenStore
    private let waitForFailures: Int
    private let condition = NSCondition()
    private let state = Protected((failures: 0, refreshes: 0))

    init(server: String, store: TokenStore, waitForFailures: Int, tokenPath: String = "/auth/token") {
        tokenURL = server + tokenPath
        self.store = store
        self.waitForFailures = waitForFailures
    }

    var failuresSeen: Int { state.withLock { $0.failures } }
    var refreshes: Int { state.withLock { $0.refreshes } }

    func shouldRetry(statusCode: HTTPStatusCode?, headers: HTTPHeaders, bodyJSON: Any?, error: HTTPTransportError) -> Bool {
        guard statusCode == .unauthorized else { return false }
        condition.lock()
        state.withLock { $0.failures += 1 }
        condition.broadcast()
        condition.unlock()
        return true
    }

    func refresh() throws {
        let priming = state.withLock { $0.refreshes == 0 && $0.failures == 0 }
        if !priming {
            condition.lock()
            let deadline = Date(timeIntervalSinceNow: 10)
            while state.withLock({ $0.failures }) < waitForFailures, condition.wait(until: deadline) {}
            condition.unlock()
        }
        state.withLock { $0.refreshes += 1 }
        let response = try HTTPTransport().send(request: HTTPRequest(httpMethod: .post, endpoint: tokenURL)).get()
        guard let token = try response.getJSONDictionary()?["token"] as? String else {
            throw HTTPTransportError(code: .badResponse, message: "no token in the response")
        }
        store.set(token)
    }
}

/// A delegate with the default decisions and a given refresh.
private struct ClosureDelegate: HTTPTransportRetrierDelegate {
    let body: @Sendable () throws -> Void
    init(_ body: @escaping @Sendable () throws -> Void) { self.body = body }
    func refresh() throws { try body() }
}
