import Foundation
@testable import HTTPTransport
import XCTest

/// `ServerSentEventReconnection`'s decisions, connection by connection, without a server: one
/// transition per test, the jitter's random source fixed (0: no jitter) unless a test sets it.
final class ServerSentEventReconnectionTests: XCTestCase {
    private let reset = HTTPTransportError(code: .badResponse, message: "connection cut", url: "http://x/")
    private let refused = HTTPTransportError(code: .cannotConnect, message: "refused", url: "http://x/")

    func testCleanEndAfterEventsReconnectsAfterTheDefaultThreeSeconds() {
        var reconnection = opened()
        XCTAssertEqual(delay(reconnection.connectionEnded(.ended, decoder: ServerSentEventDecoder(), deliveredEvents: true)), 3)
    }

    func testTheServersRetryIsTheWaitAboveTheFloor() {
        var reconnection = opened()
        let decoder = decoded("retry: 2000\nid: 7\ndata: x\n\n")
        XCTAssertEqual(delay(reconnection.connectionEnded(.ended, decoder: decoder, deliveredEvents: true)), 2)
        XCTAssertEqual(reconnection.lastEventIDHeader, "7")
    }

    func testARetryLastsUntilTheServerSendsAnother() {
        var reconnection = started(with: "retry: 2000\ndata: x\n\n")
        XCTAssertEqual(delay(reconnection.connectionEnded(.ended, decoder: decoded("data: y\n\n"), deliveredEvents: true)), 2)
    }

    func testTheFloorRaisesARetryOfZero() {
        var reconnection = opened()
        XCTAssertEqual(delay(reconnection.connectionEnded(.ended, decoder: decoded("retry: 0\ndata: x\n\n"), deliveredEvents: true)), 0.5)
    }

    func testACleanEndWithoutAnEventDoublesTheNextWait() {
        var reconnection = started(with: "retry: 0\ndata: x\n\n")
        XCTAssertEqual(delay(reconnection.connectionEnded(.ended, decoder: ServerSentEventDecoder(), deliveredEvents: false)), 1)
        XCTAssertEqual(reconnection.failedReconnects, 1)
    }

    func testTheFirstConnectionEndingWithoutAnEventWaitsTheBaseTime() {
        var reconnection = opened()
        XCTAssertEqual(delay(reconnection.connectionEnded(.ended, decoder: decoded("retry: 0\n\n"), deliveredEvents: false)), 0.5)
        XCTAssertEqual(reconnection.failedReconnects, 0, "the first connection is no reconnect")
    }

    func testEachReconnectWithoutAnEventDoublesTheWaitUpToTheCap() {
        let policy = ServerSentEventReconnectionPolicy()
        XCTAssertEqual((1...7).map { policy.delay(beforeReconnect: $0, retry: 3, random: 0) }, [3, 6, 12, 24, 48, 60, 60])
    }

    func testAServerRetryAboveTheCapIsCapped() {
        XCTAssertEqual(ServerSentEventReconnectionPolicy().delay(beforeReconnect: 1, retry: 1e12, random: 0), 60)
    }

    func testAHugeReconnectCountStaysAtTheCap() {
        XCTAssertEqual(ServerSentEventReconnectionPolicy().delay(beforeReconnect: .max, retry: 3, random: 1), 60)
    }

    func testJitterVariesTheWaitByItsFractionEitherWay() {
        let policy = ServerSentEventReconnectionPolicy(jitter: 0.2)
        XCTAssertEqual(policy.delay(beforeReconnect: 1, retry: 3, random: -1), 2.4, accuracy: 1e-9)
        XCTAssertEqual(policy.delay(beforeReconnect: 1, retry: 3, random: 1), 3.6, accuracy: 1e-9)
    }

    func testJitterNeverLeavesTheFloorOrTheCap() {
        let policy = ServerSentEventReconnectionPolicy(jitter: 0.5)
        XCTAssertEqual(policy.delay(beforeReconnect: 1, retry: 0, random: -1), 0.5)
        XCTAssertEqual(policy.delay(beforeReconnect: 9, retry: 3, random: 1), 60)
    }

    func testTheInjectedRandomSourcePicksTheJitter() {
        var reconnection = ServerSentEventReconnection(random: { 1 })
        reconnection.connectionOpened()
        XCTAssertEqual(delay(reconnection.connectionEnded(.ended, decoder: ServerSentEventDecoder(), deliveredEvents: true)) ?? 0,
                       3.6, accuracy: 1e-9)
    }

    func testValuesOutOfRangeAreReadAsTheNearestSensibleOnes() {
        let policy = ServerSentEventReconnectionPolicy(minimumDelay: -1, maximumDelay: .infinity, jitter: 7)
        XCTAssertEqual(policy.delay(beforeReconnect: 1, retry: 0, random: 1), 0, "no negative floor")
        XCTAssertEqual(policy.delay(beforeReconnect: 1, retry: 2, random: 1), 4, "jitter at most 1")
        XCTAssertEqual(policy.delay(beforeReconnect: 200, retry: 2, random: 0), 86_400, "an infinite cap is a day")
        let nonsense = ServerSentEventReconnectionPolicy(minimumDelay: .nan, maximumDelay: .nan, jitter: .nan)
        XCTAssertEqual(nonsense.delay(beforeReconnect: 1, retry: 3, random: 1), 0)
    }

    func testNoLastEventIDHeaderBeforeAnIdOrAfterAnEmptyOne() {
        var reconnection = opened()
        XCTAssertNil(reconnection.lastEventIDHeader)
        _ = reconnection.connectionEnded(.ended, decoder: decoded("id: 1\n\nid\n\n"), deliveredEvents: false)
        XCTAssertNil(reconnection.lastEventIDHeader)
    }

    func testNoContentFinishes() {
        var reconnection = opened()
        guard case .finish = reconnection.connectionEnded(.noContent, decoder: ServerSentEventDecoder(), deliveredEvents: false) else {
            return XCTFail("204 ends the events")
        }
    }

    func testRefusedHeadFailsWithoutReconnecting() {
        var reconnection = opened()
        let wrongType = HTTPTransportError(code: .badResponse, message: "not an event stream", url: "http://x/")
        XCTAssertEqual(failure(reconnection.connectionEnded(.refused(wrongType), decoder: ServerSentEventDecoder(), deliveredEvents: false)),
                       .badResponse)
    }

    func testStatusErrorFailsWithoutReconnecting() {
        var reconnection = opened()
        let status = HTTPTransportError(code: .httpStatus, message: "500", url: "http://x/")
        XCTAssertEqual(failure(reconnection.connectionEnded(.failed(status), decoder: ServerSentEventDecoder(), deliveredEvents: false)),
                       .httpStatus)
    }

    func testErrorsANewConnectionCannotMendFailAtOnce() {
        for code in [HTTPTransportError.Code.tlsFailure, .pinningFailed, .invalidURL, .interceptorFailed, .cancelled, .addressNotAllowed] {
            var reconnection = opened()
            let error = HTTPTransportError(code: code, message: "x", url: "http://x/")
            XCTAssertEqual(failure(reconnection.connectionEnded(.failed(error), decoder: ServerSentEventDecoder(), deliveredEvents: true)), code)
        }
    }

    func testFirstConnectionFailingBeforeItOpensFailsAtOnce() {
        var reconnection = ServerSentEventReconnection()
        XCTAssertEqual(failure(reconnection.connectionEnded(.failed(refused), decoder: ServerSentEventDecoder(), deliveredEvents: false)),
                       .cannotConnect)
    }

    func testTheFifthFailedReconnectInARowEndsWithTheLastError() {
        var reconnection = started(with: "data: x\n\n")
        for _ in 1...4 { _ = reconnection.connectionEnded(.failed(refused), decoder: ServerSentEventDecoder(), deliveredEvents: false) }
        XCTAssertEqual(failure(reconnection.connectionEnded(.failed(reset), decoder: ServerSentEventDecoder(), deliveredEvents: false)),
                       .badResponse)
    }

    func testTheFifthCleanEndInARowWithoutAnEventFailsSayingSo() {
        var reconnection = ServerSentEventReconnection(url: "http://x/events", random: { 0 })
        reconnection.connectionOpened()
        for _ in 0...4 { _ = reconnection.connectionEnded(.ended, decoder: ServerSentEventDecoder(), deliveredEvents: false) }
        guard case .fail(let error) = reconnection.connectionEnded(.ended, decoder: ServerSentEventDecoder(), deliveredEvents: false) else {
            return XCTFail("the sixth connection without an event is the fifth failed reconnect")
        }
        XCTAssertEqual(error.code, .badResponse)
        XCTAssertTrue(error.message.contains("5 times in a row without an event"), error.message)
        XCTAssertEqual(error.url, "http://x/events")
    }

    func testAnEventResetsTheFailedReconnectCount() {
        var reconnection = started(with: "data: x\n\n")
        for _ in 1...4 { _ = reconnection.connectionEnded(.failed(refused), decoder: ServerSentEventDecoder(), deliveredEvents: false) }
        XCTAssertEqual(delay(reconnection.connectionEnded(.failed(reset), decoder: ServerSentEventDecoder(), deliveredEvents: true)), 3,
                       "the wait falls back to the base")
        XCTAssertEqual(reconnection.failedReconnects, 0)
    }

    func testWithoutALimitFailedReconnectsGoOnForeverAtTheCap() {
        var reconnection = ServerSentEventReconnection(policy: .init(maxConsecutiveFailures: nil), random: { 0 })
        reconnection.connectionOpened()
        var waits: [TimeInterval?] = []
        for _ in 0..<100 { waits.append(delay(reconnection.connectionEnded(.ended, decoder: ServerSentEventDecoder(), deliveredEvents: false))) }
        XCTAssertEqual(waits.last, 60)
        XCTAssertFalse(waits.contains(nil))
    }

    func testALimitBelowOneCountsAsOne() {
        var reconnection = ServerSentEventReconnection(policy: .init(maxConsecutiveFailures: 0), random: { 0 })
        reconnection.connectionOpened()
        XCTAssertNotNil(delay(reconnection.connectionEnded(.ended, decoder: ServerSentEventDecoder(), deliveredEvents: true)))
        XCTAssertNotNil(failure(reconnection.connectionEnded(.ended, decoder: ServerSentEventDecoder(), deliveredEvents: false)))
    }

    func testTheLastEventIDCarriesOverAConnectionThatNamedNone() {
        var reconnection = ServerSentEventReconnection(lastEventID: "41", random: { 0 })
        XCTAssertEqual(reconnection.lastEventIDHeader, "41", "the first connection resumes where the caller said")
        reconnection.connectionOpened()
        _ = reconnection.connectionEnded(.ended, decoder: decoded("data: x\n\n", from: reconnection.lastEventID), deliveredEvents: true)
        XCTAssertEqual(reconnection.lastEventIDHeader, "41")
        _ = reconnection.connectionEnded(.ended, decoder: decoded("id: 42\ndata: y\n\n", from: reconnection.lastEventID),
                                         deliveredEvents: true)
        XCTAssertEqual(reconnection.lastEventIDHeader, "42")
    }

    func testFailedReconnectsDoubleTheServersRetryAndAnEventStartsOver() {
        var reconnection = started(with: "retry: 1000\ndata: x\n\n")
        var waits: [TimeInterval?] = []
        for _ in 1...4 { waits.append(delay(reconnection.connectionEnded(.failed(refused), decoder: ServerSentEventDecoder(),
                                                                          deliveredEvents: false))) }
        XCTAssertEqual(waits, [2, 4, 8, 16], "each reconnect that brought nothing doubles the wait before the next")
        XCTAssertEqual(reconnection.failedReconnects, 4)
        XCTAssertEqual(delay(reconnection.connectionEnded(.ended, decoder: ServerSentEventDecoder(), deliveredEvents: true)), 1,
                       "an event: back to the server's retry")
        XCTAssertEqual(delay(reconnection.connectionEnded(.ended, decoder: ServerSentEventDecoder(), deliveredEvents: false)), 2)
    }

    func testEveryFailureANewConnectionMayMendReconnectsOnceOpened() {
        for code in [HTTPTransportError.Code.nameResolution, .cannotConnect, .timeout, .badResponse, .other] {
            var reconnection = opened()
            let error = HTTPTransportError(code: code, message: "x", url: "http://x/")
            XCTAssertEqual(delay(reconnection.connectionEnded(.failed(error), decoder: ServerSentEventDecoder(), deliveredEvents: true)), 3,
                           "\(code)")
        }
    }

    func testTheDefaultRandomSourceKeepsEveryWaitWithinTheJitter() {
        var reconnection = ServerSentEventReconnection()
        reconnection.connectionOpened()
        var waits: Set<TimeInterval> = []
        for _ in 0..<200 {
            let wait = delay(reconnection.connectionEnded(.ended, decoder: ServerSentEventDecoder(), deliveredEvents: true)) ?? -1
            XCTAssertGreaterThanOrEqual(wait, 2.4)
            XCTAssertLessThanOrEqual(wait, 3.6)
            waits.insert(wait)
        }
        XCTAssertGreaterThan(waits.count, 1, "the waits are spread, not all the same")
    }

    // MARK: Helpers

    private func opened() -> ServerSentEventReconnection {
        var reconnection = ServerSentEventReconnection(random: { 0 })
        reconnection.connectionOpened()
        return reconnection
    }

    /// After a first connection that read `stream` (with events) and ended cleanly.
    private func started(with stream: String) -> ServerSentEventReconnection {
        var reconnection = opened()
        _ = reconnection.connectionEnded(.ended, decoder: decoded(stream), deliveredEvents: true)
        return reconnection
    }

    private func decoded(_ stream: String, from lastEventID: String = "") -> ServerSentEventDecoder {
        var decoder = ServerSentEventDecoder(lastEventID: lastEventID)
        _ = decoder.decode(Data(stream.utf8))
        return decoder
    }

    private func delay(_ decision: ServerSentEventReconnection.Decision) -> TimeInterval? {
        guard case .reconnect(let seconds) = decision else { return nil }
        return seconds
    }

    private func failure(_ decision: ServerSentEventReconnection.Decision) -> HTTPTransportError.Code? {
        guard case .fail(let error) = decision else { return nil }
        return error.code
    }
}
