import Foundation
@testable import HTTPTransport
import XCTest

/// `TokenBucket` on its own, at chosen monotonic times: the burst, the queue of reserved tokens
/// (each send is told when its token is due, in the order the sends came), refill and give-back.
final class TokenBucketTests: XCTestCase {
    func testAFullBucketGivesItsBurstAtOnceThenQueuesTokensOneIntervalApart() {
        var bucket = TokenBucket(rate: 2, burst: 3, now: 0)
        let waits = (0..<6).map { _ in bucket.reserve(now: 0, within: 60) }
        XCTAssertEqual(waits, [0, 0, 0, 0.5, 1.0, 1.5])
        XCTAssertEqual(bucket.tokens, -3, "three tokens promised to waiting sends")
    }

    func testTokensComeBackAtTheRateUpToTheBurst() {
        var bucket = TokenBucket(rate: 2, burst: 3, now: 0)
        for _ in 0..<3 { _ = bucket.reserve(now: 0, within: 60) }
        XCTAssertEqual((0..<3).map { _ in bucket.reserve(now: 1, within: 60) }, [0, 0, 0.5], "1 s at 2/s: two tokens")
        var idle = TokenBucket(rate: 2, burst: 3, now: 0)
        for _ in 0..<3 { _ = idle.reserve(now: 0, within: 60) }
        XCTAssertEqual((0..<4).map { _ in idle.reserve(now: 100, within: 60) }, [0, 0, 0, 0.5], "never more than the burst")
    }

    func testAReservationDueAfterItsLimitTakesNothing() {
        var bucket = TokenBucket(rate: 1, burst: 1, now: 0)
        XCTAssertEqual(bucket.reserve(now: 0, within: 0), 0)
        XCTAssertNil(bucket.reserve(now: 0, within: 0.5))
        XCTAssertEqual(bucket.tokens, 0, "the refused send took nothing")
        XCTAssertEqual(bucket.reserve(now: 0, within: 1), 1)
        XCTAssertEqual(bucket.reserve(now: 0, within: 5), 2)
    }

    func testAGivenBackTokenGoesToTheNextInLine() {
        var bucket = TokenBucket(rate: 1, burst: 1, now: 0)
        XCTAssertEqual(bucket.reserve(now: 0, within: 10), 0)
        XCTAssertEqual(bucket.reserve(now: 0, within: 10), 1)
        bucket.giveBack(now: 0)  // the second send was cancelled
        XCTAssertEqual(bucket.reserve(now: 0, within: 10), 1, "its slot, not the one after it")
    }

    func testGivingBackToAFullBucketSavesNoExtraToken() {
        var bucket = TokenBucket(rate: 1, burst: 1, now: 0)
        bucket.giveBack(now: 0)
        bucket.giveBack(now: 0)
        XCTAssertEqual(bucket.tokens, 1)
        XCTAssertEqual([bucket.reserve(now: 0, within: 10), bucket.reserve(now: 0, within: 10)], [0, 1])
    }

    func testIsFullOnceTheRateHasRefilledItAndLookingChangesNothing() {
        var bucket = TokenBucket(rate: 4, burst: 2, now: 0)
        XCTAssertTrue(bucket.isFull(now: 0))
        _ = bucket.reserve(now: 0, within: 1)
        _ = bucket.reserve(now: 0, within: 1)
        XCTAssertFalse(bucket.isFull(now: 0.25), "one token back of two")
        XCTAssertTrue(bucket.isFull(now: 0.5))
        XCTAssertEqual(bucket.tokens, 0, "isFull looks at a copy")
        XCTAssertEqual(bucket.reserve(now: 0, within: 1), 0.25)
    }

    func testABurstBelowOneIsOneAndTimeGoingBackAddsNothing() {
        var bucket = TokenBucket(rate: 0.5, burst: 0, now: 10)
        XCTAssertEqual(bucket.capacity, 1)
        XCTAssertEqual(bucket.reserve(now: 10, within: 0), 0)
        XCTAssertEqual(bucket.reserve(now: 5, within: 60), 2, "an earlier reading refills nothing")
    }
}
