import Foundation
@testable import HTTPTransport
import XCTest

/// A request's time-out becomes two numbers computed apart: the exchange's deadline in the
/// transport (`Hop.timeLimit`) and the first hop's libcurl time-out in the engine
/// (`CurlEngine.milliseconds`). They must agree, or a redirect hop would get more or less time
/// than the first hop left.
final class ExchangeTimeLimitTests: XCTestCase {
    private let timeouts: [TimeInterval] = [
        0, -0.0, -1, -.infinity, .nan, .infinity, 0.0004, 0.001, 0.0015, 1.5, 30, 1e12, .greatestFiniteMagnitude,
    ]

    func testTheExchangeDeadlineAndTheFirstHopsLibcurlTimeOutAgree() {
        for seconds in timeouts {
            XCTAssertEqual(Hop.timeLimit(seconds), .milliseconds(CurlEngine.milliseconds(seconds)), "time-out \(seconds)")
        }
    }

    func testATimeLimitIsWholeMillisecondsRoundedUp() {
        XCTAssertEqual(Hop.timeLimit(1.5), .milliseconds(1500))
        XCTAssertEqual(Hop.timeLimit(0.0015), .milliseconds(2))
        XCTAssertEqual(Hop.timeLimit(0.0004), .milliseconds(1))
    }

    func testATimeOutOfZeroLessOrNaNIsOneMillisecondNotNoLimit() {
        for seconds in [0, -1, -.infinity, .nan] as [TimeInterval] {
            XCTAssertEqual(Hop.timeLimit(seconds), .milliseconds(1), "time-out \(seconds)")
            XCTAssertEqual(CurlEngine.milliseconds(seconds), 1, "time-out \(seconds)")
        }
    }

    func testAnInfiniteTimeOutIsCappedSoTheDeadlineDoesNotOverflow() {
        let now = ContinuousClock.now
        for seconds in [.infinity, .greatestFiniteMagnitude, 1e12] as [TimeInterval] {
            XCTAssertEqual(Hop.timeLimit(seconds), .seconds(1_000_000_000), "time-out \(seconds)")
            XCTAssertGreaterThan(now + Hop.timeLimit(seconds), now)
        }
    }
}
