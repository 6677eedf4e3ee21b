import Foundation
import HTTPTransport
import HTTPTransportRedis
import XCTest

/// `RetryBudget` counts shared through a real Redis: the retries of every transport whose
/// session has the store come out of one budget.
final class SharedRetryBudgetTests: XCTestCase {
    private static let redis = SharedPeer({ try RedisPeer() }, stop: { $0.stop() })
    override class func tearDown() { redis.stop() }

    private func store(_ prefix: String) throws -> RedisSharedState {
        try RedisSharedState(url: Self.redis.get().url(), keyPrefix: prefix, timeout: 0.5)
    }

    func testTwoTransportsSpendOneBudget() throws {
        let key = UUID().uuidString
        // 0.2 retries a second over 10 s: two retries for everyone.
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: 0.001, maxDelay: 0.01,
                                 budget: RetryBudget(ratio: 0, minimumPerSecond: 0.2))
        let first = try fleetTransport(store(key), retrier: policy)
        let second = try fleetTransport(store(key), retrier: policy)
        let failing = outageURL(key, "fail=100&status=503")
        _ = first.send(request: HTTPRequest(endpoint: failing))
        XCTAssertEqual(try arrivals(key).statuses.count, 3, "the first send used the two retries")
        let refused = try XCTUnwrap(second.send(request: HTTPRequest(endpoint: failing)).error)
        XCTAssertTrue(refused.message.contains("retry budget is spent: 2 retries"), refused.message)
        XCTAssertEqual(try arrivals(key).statuses.count, 4, "the other transport did not retry")
    }

    func testFirstAttemptsOfEveryTransportRaiseTheBudget() throws {
        let key = UUID().uuidString
        let budget = RetryBudget(ratio: 0.5, minimumPerSecond: 0)
        let (first, second) = (try store(key), try store(key))
        for _ in 0..<2 { XCTAssertTrue(first.recordFirstAttempt(budget: budget)) }
        for _ in 0..<2 { XCTAssertTrue(second.recordFirstAttempt(budget: budget)) }
        // 0.5 × 4 first attempts: two retries.
        XCTAssertEqual(first.takeRetry(budget: budget), SharedRetryVerdict(allowed: true, retries: 0, firstAttempts: 4))
        XCTAssertEqual(second.takeRetry(budget: budget), SharedRetryVerdict(allowed: true, retries: 1, firstAttempts: 4))
        XCTAssertEqual(first.takeRetry(budget: budget), SharedRetryVerdict(allowed: false, retries: 2, firstAttempts: 4))
    }
}
