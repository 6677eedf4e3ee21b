import Foundation
@testable import HTTPTransport
import XCTest

/// `RetryBudget`: retries across a policy's sends bounded by `ratio` × the first attempts of the
/// last 10 s plus `minimumPerSecond` × 10; a retry over budget returns the failure and says why.
final class RetryBudgetTests: XCTestCase {
    func testTheFloorAllowsMinimumPerSecondTimesTenRetries() {
        let clock = ManualClock()
        let ledger = RetryBudgetLedger(budget: RetryBudget(ratio: 0, minimumPerSecond: 0.5), clock: clock.clock)
        XCTAssertEqual((0..<7).map { _ in ledger.takeRetry().allowed }, [true, true, true, true, true, false, false])
    }

    func testRetriesGrowWithFirstAttempts() {
        let clock = ManualClock()
        let ledger = RetryBudgetLedger(budget: RetryBudget(ratio: 0.1, minimumPerSecond: 0), clock: clock.clock)
        XCTAssertFalse(ledger.takeRetry().allowed)
        for _ in 0..<20 { ledger.recordFirstAttempt() }
        XCTAssertEqual((0..<3).map { _ in ledger.takeRetry().allowed }, [true, true, false], "0.1 × 20 = 2")
    }

    func testTheWindowSlides() {
        let clock = ManualClock()
        let ledger = RetryBudgetLedger(budget: RetryBudget(ratio: 0.5, minimumPerSecond: 0), clock: clock.clock)
        for _ in 0..<4 { ledger.recordFirstAttempt() }
        XCTAssertTrue(ledger.takeRetry().allowed)
        XCTAssertTrue(ledger.takeRetry().allowed)
        XCTAssertFalse(ledger.takeRetry().allowed)
        clock.advance(9)
        XCTAssertFalse(ledger.takeRetry().allowed, "9 s later both still count")
        clock.advance(1)
        XCTAssertFalse(ledger.takeRetry().allowed, "10 s later the first attempts are gone too")
        for _ in 0..<2 { ledger.recordFirstAttempt() }
        XCTAssertTrue(ledger.takeRetry().allowed, "the old retries left the window with them")
    }

    func testARetryOverBudgetReturnsTheFailureAndSaysWhy() throws {
        let sent = Protected(0)
        let engine = StubEngine { request in
            sent.withLock { $0 += 1 }
            return RawResponse(request: request, statusCode: .serviceUnavailable)
        }
        let retried = Protected(0)
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: 0, onRetry: { _, _ in retried.withLock { $0 += 1 } },
                                 budget: RetryBudget(ratio: 0, minimumPerSecond: 0.2))
        let transport = HTTPTransport(session: Session(engine: engine), retrier: policy)
        let error = try XCTUnwrap(transport.send(request: HTTPRequest(endpoint: "http://api.test/")).error)
        XCTAssertEqual(error.httpStatusCode, .serviceUnavailable, "the failure itself is returned")
        XCTAssertEqual(sent.value, 3, "two retries (0.2/s × 10 s), not four")
        XCTAssertEqual(retried.value, 2, "onRetry announces only the retries made")
        XCTAssertTrue(error.message.contains("Not retried: the retry budget is spent: 2 retries in the last 10 s"), error.message)
    }

    func testCopiesOfAPolicyShareItsBudget() {
        let engine = StubEngine { RawResponse(request: $0, statusCode: .badGateway) }
        let policy = RetryPolicy(maxAttempts: 2, baseDelay: 0, budget: RetryBudget(ratio: 0, minimumPerSecond: 0.1))
        let copy = policy
        let first = HTTPTransport(session: Session(engine: engine), retrier: policy)
        let second = HTTPTransport(session: Session(engine: engine), retrier: copy)
        XCTAssertFalse(first.send(request: HTTPRequest(endpoint: "http://api.test/")).error?.message.contains("Not retried") ?? true)
        XCTAssertTrue(second.send(request: HTTPRequest(endpoint: "http://api.test/")).error?.message.contains("Not retried") ?? false)
    }

    func testWithoutABudgetRetriesAreUnbounded() {
        let sent = Protected(0)
        let engine = StubEngine { request in
            sent.withLock { $0 += 1 }
            return RawResponse(request: request, statusCode: .serviceUnavailable)
        }
        let transport = HTTPTransport(session: Session(engine: engine), retrier: RetryPolicy(maxAttempts: 3, baseDelay: 0))
        for _ in 0..<20 { _ = transport.send(request: HTTPRequest(endpoint: "http://api.test/")) }
        XCTAssertEqual(sent.value, 60)
    }
}
