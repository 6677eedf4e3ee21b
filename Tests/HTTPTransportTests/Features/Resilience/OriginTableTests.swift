import Foundation
@testable import HTTPTransport
import XCTest

/// `OriginTable`, the session's per-origin states: bounded by forgetting idle origins, and
/// forgetting costs a constant share per new origin, however many there are.
final class OriginTableTests: XCTestCase {
    private func origin(_ index: Int) -> Origin { Origin(URL(string: "http://h\(index).test/")!) }

    private func fill(_ table: inout OriginTable, count: Int, _ state: (Int) -> OriginTable.State) {
        for index in 0..<count {
            table.makeRoom(now: 0)
            table[origin(index)] = state(index)
        }
    }

    func testSixteenThousandIdleOriginsKeepTheTableAtItsLimit() {
        var table = OriginTable()
        fill(&table, count: 16_384) { _ in OriginTable.State() }
        XCTAssertLessThanOrEqual(table.count, OriginTable.forgetIdleAbove)
    }

    func testScansLookAtEachOriginAFewTimesWhenEveryStateStillMatters() {
        // Paused origins cannot be forgotten; scanning the whole table for each new one made a
        // batch to 16k origins quadratic (about 125 million states looked at).
        var table = OriginTable()
        let count = 16_384
        fill(&table, count: count) { _ in OriginTable.State(pausedUntil: 100) }
        XCTAssertEqual(table.count, count, "no state that matters is forgotten")
        XCTAssertLessThanOrEqual(table.scanned, 2 * count)
    }

    func testOriginsWhoseStateMattersAgainAreForgottenOnceIdle() {
        var table = OriginTable()
        fill(&table, count: 4_096) { _ in OriginTable.State(pausedUntil: 100) }
        for index in 4_096..<8_192 {
            table.makeRoom(now: 200)  // every pause is over
            table[origin(index)] = OriginTable.State()
        }
        XCTAssertLessThanOrEqual(table.count, 4_096 + 1, "the paused origins went once their pause was over")
    }

    func testAGuardSendingToSixteenThousandRateLimitedOriginsStaysBounded() throws {
        let clock = ManualClock()
        var configuration = Session.Configuration()
        configuration.hostLimits = HostLimits(requestsPerSecond: 10, burst: 1)
        let transport = ClockedStub(clock: clock).transport(configuration)
        for index in 0..<16_384 {
            _ = transport.send(request: HTTPRequest(endpoint: "http://h\(index).test/"))
            clock.advance(0.01)  // a bucket is full again 0.1 s after its send
        }
        let guardian = try XCTUnwrap(transport.session.originGuard)
        XCTAssertLessThanOrEqual(guardian.originCount, 2 * OriginTable.forgetIdleAbove)
        XCTAssertLessThanOrEqual(guardian.originsScanned, 3 * 16_384)
    }
}
