import Foundation
@testable import HTTPTransport
import XCTest

/// `RetryStep.Attempts`, the retry decisions of one send, driven by hand with a scripted retrier
/// (no engine, no waiting): which failures the retrier is asked about, what it is told, how its
/// answer becomes the next attempt, what a cancelled wait returns.
final class RetryStepTests: XCTestCase {
    /// Answers each question with the next scripted action, recording what it was asked.
    private final class ScriptedRetrier: HTTPRetrier {
        private let script: [RetryAction]
        let contexts = Recorder<RetryContext>()
        private let firstAttempt: @Sendable (RawRequest) -> RawRequest

        init(_ script: [RetryAction], firstAttempt: @escaping @Sendable (RawRequest) -> RawRequest = { $0 }) {
            self.script = script
            self.firstAttempt = firstAttempt
        }

        func retry(_ context: RetryContext) -> RetryAction {
            let number = contexts.count
            contexts.add(context)
            return number < script.count ? script[number] : .doNotRetry
        }

        func prepareFirstAttempt(_ request: RawRequest) -> RawRequest { firstAttempt(request) }
    }

    private func request(_ body: RawRequest.Body? = nil) throws -> RawRequest {
        RawRequest(method: .post, url: try XCTUnwrap(URL(string: "http://api.test/jobs")), body: body)
    }

    private func failed(_ request: RawRequest, _ code: HTTPTransportError.Code = .cannotConnect,
                        status: HTTPStatusCode? = nil) -> RawResponse {
        RawResponse(request: request, statusCode: status,
                    error: HTTPTransportError(code: code, message: "attempt failed (\(code))", url: request.url.absoluteString,
                                              httpStatusCode: status))
    }

    private static func tagged(_ request: RawRequest, _ value: String) -> RawRequest {
        var next = request
        next.headers["X-Attempt"] = value
        return next
    }

    /// The decision as text: "finish <status or error code>" or "retry <seconds>".
    private func decide(_ attempts: inout RetryStep.Attempts, _ response: RawResponse) -> String {
        attempts.begin()
        switch attempts.decide(after: response) {
        case .finish(let response): return "finish \(response.error.map { "\($0.code)" } ?? "\(response.statusCode?.rawValue ?? 0)")"
        case .retry(let seconds): return "retry \(seconds)"
        }
    }

    func testASuccessFinishesWithoutAskingTheRetrier() throws {
        let retrier = ScriptedRetrier([.retry(request: try request(), delay: 1)])
        var attempts = RetryStep.Attempts(retrier: retrier, resolved: try request(), shared: nil)
        XCTAssertEqual(decide(&attempts, RawResponse(request: try request(), statusCode: .ok)), "finish 200")
        XCTAssertEqual(retrier.contexts.count, 0)
    }

    func testFailuresNoRetryCanCureFinishWithoutAskingTheRetrier() throws {
        for code in [HTTPTransportError.Code.cancelled, .interceptorFailed, .invalidURL, .encodingFailed] {
            let retrier = ScriptedRetrier([.retry(request: try request(), delay: 1)])
            var attempts = RetryStep.Attempts(retrier: retrier, resolved: try request(), shared: nil)
            XCTAssertEqual(decide(&attempts, failed(try request(), code)), "finish \(code)")
            XCTAssertEqual(retrier.contexts.count, 0, "\(code)")
        }
    }

    func testAttemptsAreNumberedAndEachRetrySendsTheRetriersRequest() throws {
        let first = try request()
        let retrier = ScriptedRetrier([.retry(request: Self.tagged(first, "2"), delay: 1.5), .retry(request: Self.tagged(first, "3"), delay: 0)],
                                      firstAttempt: { Self.tagged($0, "1") })
        var attempts = RetryStep.Attempts(retrier: retrier, resolved: first, shared: nil)
        XCTAssertEqual(attempts.request.headers["X-Attempt"], "1", "prepareFirstAttempt shapes the first request")
        XCTAssertEqual(decide(&attempts, failed(attempts.request)), "retry 1.5")
        XCTAssertNil(attempts.waited(true))
        XCTAssertEqual(attempts.request.headers["X-Attempt"], "2")
        XCTAssertEqual(decide(&attempts, failed(attempts.request, .timeout)), "retry 0.0")
        XCTAssertNil(attempts.waited(true))
        XCTAssertEqual(attempts.request.headers["X-Attempt"], "3")
        XCTAssertEqual(decide(&attempts, failed(attempts.request, .badResponse)), "finish badResponse")
        let contexts = retrier.contexts.values
        XCTAssertEqual(contexts.map(\.attempt), [1, 2, 3])
        XCTAssertEqual(contexts.map { $0.request.headers["X-Attempt"] }, ["1", "2", "3"], "the request each attempt sent")
        XCTAssertEqual(contexts.map(\.error.code), [.cannotConnect, .timeout, .badResponse])
        XCTAssertEqual(Set(contexts.map(\.firstAttemptStarted)).count, 1, "one first start for every attempt")
        XCTAssertEqual(contexts[0].attemptStarted, contexts[0].firstAttemptStarted)
        XCTAssertGreaterThanOrEqual(contexts[2].attemptStarted, contexts[1].attemptStarted)
    }

    func testDelaysAreBetweenZeroAndFiveMinutes() throws {
        let delays: [TimeInterval] = [1_000, .infinity, .nan, -5, 300, 299.5, .greatestFiniteMagnitude, -.infinity]
        let next = try request()
        let retrier = ScriptedRetrier(delays.map { .retry(request: next, delay: $0) })
        var attempts = RetryStep.Attempts(retrier: retrier, resolved: try request(), shared: nil)
        var decided: [String] = []
        for _ in delays {
            decided.append(decide(&attempts, failed(attempts.request)))
            XCTAssertNil(attempts.waited(true))
        }
        XCTAssertEqual(decided, ["retry 300.0", "retry 300.0", "retry 300.0", "retry 0.0", "retry 300.0", "retry 299.5",
                                 "retry 300.0", "retry 300.0"])
    }

    func testDoNotRetryFinishesWithTheResponseAsItIs() throws {
        let retrier = ScriptedRetrier([.doNotRetry])
        var attempts = RetryStep.Attempts(retrier: retrier, resolved: try request(), shared: nil)
        var response = failed(try request(), .httpStatus, status: .serviceUnavailable)
        response.data = Data("down".utf8)
        attempts.begin()
        guard case .finish(let answer) = attempts.decide(after: response) else { return XCTFail("not retried") }
        XCTAssertEqual(answer.statusCode, .serviceUnavailable)
        XCTAssertEqual(answer.data, Data("down".utf8))
        XCTAssertEqual(answer.error?.message, "attempt failed (httpStatus)")
    }

    func testFailReplacesTheErrorAndKeepsTheRestOfTheResponse() throws {
        let replacement = HTTPTransportError(code: .other, message: "given up: the token could not be refreshed")
        var attempts = RetryStep.Attempts(retrier: ScriptedRetrier([.fail(replacement)]), resolved: try request(), shared: nil)
        attempts.begin()
        guard case .finish(let answer) = attempts.decide(after: failed(try request(), .httpStatus, status: .unauthorized)) else {
            return XCTFail("failed, not retried")
        }
        XCTAssertEqual(answer.statusCode, .unauthorized)
        XCTAssertEqual(answer.error?.code, .other)
        XCTAssertEqual(answer.error?.message, "given up: the token could not be refreshed")
    }

    func testTheRetrierIsToldWhatWasSentOnlyWhenItWasSent() throws {
        let retrier = ScriptedRetrier([.retry(request: try request(), delay: 0)])
        var attempts = RetryStep.Attempts(retrier: retrier, resolved: try request(), shared: nil)
        var unsent = failed(Self.tagged(try request(), "not sent"), .timeout)
        unsent.wasSent = false
        _ = decide(&attempts, unsent)
        XCTAssertNil(attempts.waited(true))
        _ = decide(&attempts, failed(Self.tagged(try request(), "sent"), .timeout))
        let contexts = retrier.contexts.values
        XCTAssertNil(contexts[0].sentRequest)
        XCTAssertEqual(contexts[1].sentRequest?.headers["X-Attempt"], "sent")
    }

    func testAStreamedBodyIsRetriedUntilItWasRead() throws {
        let body = StreamedBody(length: nil) { nil }
        let retrier = ScriptedRetrier([.retry(request: try request(.stream(body)), delay: 0)])
        var attempts = RetryStep.Attempts(retrier: retrier, resolved: try request(.stream(body)), shared: nil)
        XCTAssertEqual(decide(&attempts, failed(attempts.request)), "retry 0.0", "nothing read: it can be sent again")
        XCTAssertNil(attempts.waited(true))
        XCTAssertTrue(body.claim())
        XCTAssertEqual(decide(&attempts, failed(attempts.request)), "finish cannotConnect", "read once: it cannot be produced again")
        XCTAssertEqual(retrier.contexts.count, 1)
    }

    func testAStreamIsRetriedUntilItsConsumerGotSomething() throws {
        let consumer = ClosureConsumer { _ in true }
        var streamed = try request()
        streamed.streaming = StreamingBody(consumer: consumer)
        let retrier = ScriptedRetrier([.retry(request: streamed, delay: 0)])
        var attempts = RetryStep.Attempts(retrier: retrier, resolved: streamed, shared: nil)
        XCTAssertEqual(decide(&attempts, failed(streamed, .timeout)), "retry 0.0")
        XCTAssertNil(attempts.waited(true))
        _ = consumer.receive(Data("a".utf8), evenIfFull: false)
        XCTAssertEqual(decide(&attempts, failed(streamed, .timeout)), "finish timeout")
        XCTAssertEqual(retrier.contexts.count, 1)
    }

    func testAWebSocketHandshakeIsRetriedOnlyWhileNothingAnsweredIt() throws {
        var handshake = try request()
        handshake.method = .get
        handshake.webSocket = WebSocketLink(settings: .init(maxMessageSize: 1 << 16, pingInterval: nil, closeTimeout: .seconds(1),
                                                            pongTimeout: .seconds(1)), url: "ws://api.test/jobs")
        let retrier = ScriptedRetrier([.retry(request: handshake, delay: 0), .retry(request: handshake, delay: 0)])
        var attempts = RetryStep.Attempts(retrier: retrier, resolved: handshake, shared: nil)
        XCTAssertEqual(decide(&attempts, failed(handshake, .cannotConnect)), "retry 0.0")
        XCTAssertNil(attempts.waited(true))
        XCTAssertEqual(decide(&attempts, failed(handshake, .httpStatus, status: .serviceUnavailable)), "finish httpStatus")
        XCTAssertEqual(retrier.contexts.count, 1)
    }

    func testACancelledWaitEndsWithCancelledNamingTheLastFailure() throws {
        let first = try request()
        let retrier = ScriptedRetrier([.retry(request: Self.tagged(first, "2"), delay: 30)])
        var attempts = RetryStep.Attempts(retrier: retrier, resolved: first, shared: nil)
        XCTAssertEqual(decide(&attempts, failed(first, .timeout)), "retry 30.0")
        let answer = try XCTUnwrap(attempts.waited(false))
        XCTAssertEqual(answer.error?.code, .cancelled)
        XCTAssertEqual(answer.error?.message,
                       "The send was cancelled while waiting to retry; the last attempt failed: attempt failed (timeout)")
        XCTAssertEqual(answer.error?.url, "http://api.test/jobs")
        XCTAssertEqual((answer.error?.underlyingError as? HTTPTransportError)?.code, .timeout)
        XCTAssertNil(answer.request.headers["X-Attempt"], "the retry was never sent")
    }

    func testASpentBudgetEndsTheRetriesWithTheLastFailure() throws {
        // 0.1 retries a second over the 10 s window: one retry, then the budget is spent.
        let policy = RetryPolicy(maxAttempts: 5, retriesNonIdempotentRequests: true, baseDelay: 0,
                                 budget: RetryBudget(ratio: 0, minimumPerSecond: 0.1))
        var attempts = RetryStep.Attempts(retrier: policy, resolved: try request(), shared: nil)
        XCTAssertEqual(decide(&attempts, failed(attempts.request, .httpStatus, status: .badGateway)), "retry 0.0")
        XCTAssertNil(attempts.waited(true))
        attempts.begin()
        guard case .finish(let answer) = attempts.decide(after: failed(attempts.request, .httpStatus, status: .badGateway)) else {
            return XCTFail("the budget allows one retry")
        }
        XCTAssertEqual(answer.statusCode, .badGateway)
        XCTAssertEqual(answer.error?.code, .httpStatus)
        XCTAssertTrue(answer.error?.message.hasSuffix("Not retried: the retry budget is spent: 1 retries in the last 10 s, "
                                                       + "against 0.0 × 1 first attempts + 0.1/s × 10 s = 1.") ?? false,
                      answer.error?.message ?? "")
    }
}
