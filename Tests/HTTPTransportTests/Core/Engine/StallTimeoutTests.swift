import Foundation
import HTTPTransport
import XCTest

/// `Session.Configuration.stallTimeout`: a transfer that moves no data for that long fails with
/// `.timeout`, whatever its whole-exchange time-out; a slow but moving one completes.
final class StallTimeoutTests: XCTestCase {
    private func transport(stallTimeout: TimeInterval?) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.stallTimeout = stallTimeout
        return HTTPTransport(session: Session(configuration: configuration))
    }

    func testTricklingDownloadCompletesUnderAStallTimeoutShorterThanIt() throws {
        // One byte every 0.3 s for 3 s: never a whole second without data.
        let started = ContinuousClock.now
        let response = try sendOK(transport(stallTimeout: 1),
                                  HTTPRequest(endpoint: server.http + "/drip?bytes=10&delay=0.3", timeout: 60))
        XCTAssertEqual(response.body?.count, 10)
        XCTAssertGreaterThan(ContinuousClock.now - started, .seconds(2.5))
    }

    func testSilentServerFailsSoonAfterTheStallTimeout() {
        let started = ContinuousClock.now
        let result = transport(stallTimeout: 1).send(request: HTTPRequest(endpoint: server.http + "/stall?seconds=30", timeout: 60))
        let elapsed = ContinuousClock.now - started
        XCTAssertEqual(result.error?.code, .timeout, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("stallTimeout") == true, "\(String(describing: result.error))")
        // libcurl checks the speed about once a second: the stall time-out plus one, with room.
        XCTAssertLessThan(elapsed, .seconds(5))
    }

    func testFractionalStallTimeoutRoundsUpToAWholeSecond() {
        let started = ContinuousClock.now
        let result = transport(stallTimeout: 0.2).send(request: HTTPRequest(endpoint: server.http + "/stall?seconds=30", timeout: 60))
        XCTAssertEqual(result.error?.code, .timeout)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .seconds(0.9))
    }

    func testWholeExchangeTimeoutIsNotReportedAsAStall() {
        let result = transport(stallTimeout: 10).send(request: HTTPRequest(endpoint: server.http + "/delay/5", timeout: 0.5))
        XCTAssertEqual(result.error?.code, .timeout)
        XCTAssertFalse(result.error?.message.contains("stall") == true, "\(String(describing: result.error))")
    }

    func testInvalidStallTimeoutsFailBeforeSending() throws {
        for value in [0, -1, Double.nan, -Double.infinity] {
            let result = transport(stallTimeout: value).send(request: HTTPRequest(endpoint: server.http + "/get"))
            XCTAssertEqual(result.error?.code, .other, "\(value)")
            XCTAssertTrue(result.error?.message.contains("stallTimeout must be a positive number") == true, "\(value)")
        }
    }
}
