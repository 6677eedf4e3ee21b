import Foundation
@testable import HTTPTransport
import XCTest

/// The pool of idle easy handles as a state machine: most recently used first, bounded, and
/// handles idle past the time-out are closed instead of handed out.
final class HandlePoolTests: XCTestCase {
    private func handle() throws -> EasyHandle { try XCTUnwrap(EasyHandle()) }

    func testTheMostRecentlyReturnedHandleComesOutFirst() throws {
        let pool = HandlePool(maxIdle: 4, idleTimeout: 60)
        let first = try handle(), second = try handle()
        pool.checkIn(first)
        pool.checkIn(second)
        XCTAssertTrue(pool.checkOut() === second)
        XCTAssertTrue(pool.checkOut() === first)
        XCTAssertNil(pool.checkOut())
    }

    func testHandlesBeyondTheLimitAreClosed() throws {
        let pool = HandlePool(maxIdle: 2, idleTimeout: 60)
        for _ in 0..<5 { pool.checkIn(try handle()) }
        XCTAssertEqual(pool.idleCount, 2)
        let none = HandlePool(maxIdle: 0, idleTimeout: 60)
        none.checkIn(try handle())
        XCTAssertEqual(none.idleCount, 0)
    }

    func testAHandleIdlePastTheTimeoutIsNotHandedOut() throws {
        let pool = HandlePool(maxIdle: 4, idleTimeout: 1)
        let stale = try handle(), fresh = try handle()
        pool.checkIn(stale)
        pool.checkIn(fresh)
        stale.idleSince = HandlePool.now() - 5_000
        XCTAssertTrue(pool.checkOut() === fresh)
        XCTAssertNil(pool.checkOut(), "the expired handle was closed, not handed out")
        XCTAssertEqual(pool.idleCount, 0)
    }

    func testWhenEveryHandleIsPastTheTimeoutNoneIsHandedOut() throws {
        let pool = HandlePool(maxIdle: 4, idleTimeout: 1)
        let handles = try (0..<3).map { _ in try handle() }
        for handle in handles { pool.checkIn(handle) }
        for handle in handles { handle.idleSince = HandlePool.now() - 5_000 }
        XCTAssertNil(pool.checkOut())
        XCTAssertEqual(pool.idleCount, 0)
        let fresh = try handle()
        pool.checkIn(fresh)
        XCTAssertTrue(pool.checkOut() === fresh)
    }

    func testDrainClosesEveryIdleHandle() throws {
        let pool = HandlePool(maxIdle: 4, idleTimeout: 60)
        for _ in 0..<3 { pool.checkIn(try handle()) }
        pool.drain()
        XCTAssertEqual(pool.idleCount, 0)
        XCTAssertNil(pool.checkOut())
    }

    func testManyThreadsCheckingInAndOutLoseNoHandle() throws {
        let pool = HandlePool(maxIdle: 64, idleTimeout: 60)
        for _ in 0..<8 { pool.checkIn(try handle()) }
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<500 {
                if let taken = pool.checkOut() { pool.checkIn(taken) }
            }
        }
        XCTAssertEqual(pool.idleCount, 8)
    }
}
