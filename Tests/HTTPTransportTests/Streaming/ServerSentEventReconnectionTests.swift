import Foundation
@testable import HTTPTransport
import XCTest

/// `ServerSentEventReconnection`'s decisions, connection by connection, without a server.
final class ServerSentEventReconnectionTests: XCTestCase {
    private let reset = HTTPTransportError(code: .badResponse, message: "connection cut", url: "http://x/")
    private let refused = HTTPTransportError(code: .cannotConnect, message: "refused", url: "http://x/")

    func testCleanEndReconnectsAfterTheDefaultThreeSeconds() {
        var policy = opened()
        XCTAssertEqual(delay(policy.connectionEnded(.ended, decoder: ServerSentEventDecoder(), deliveredEvents: true)), 3_000)
    }

    func testServerRetryAndLastEventIDCarryOver() {
        var policy = opened()
        let decoder = decoded("retry: 50\nid: 7\ndata: x\n\n")
        XCTAssertEqual(delay(policy.connectionEnded(.ended, decoder: decoder, deliveredEvents: true)), 50)
        XCTAssertEqual(policy.lastEventIDHeader, "7")
        XCTAssertEqual(delay(policy.connectionEnded(.ended, decoder: ServerSentEventDecoder(lastEventID: "7"), deliveredEvents: false)), 50,
                       "a retry lasts until the server sends another")
    }

    func testNoLastEventIDHeaderBeforeAnIdOrAfterAnEmptyOne() {
        var policy = opened()
        XCTAssertNil(policy.lastEventIDHeader)
        _ = policy.connectionEnded(.ended, decoder: decoded("id: 1\n\nid\n\n"), deliveredEvents: false)
        XCTAssertNil(policy.lastEventIDHeader)
    }

    func testNoContentFinishes() {
        var policy = opened()
        guard case .finish = policy.connectionEnded(.noContent, decoder: ServerSentEventDecoder(), deliveredEvents: false) else {
            return XCTFail("204 ends the events")
        }
    }

    func testRefusedHeadFailsWithoutReconnecting() {
        var policy = opened()
        let wrongType = HTTPTransportError(code: .badResponse, message: "not an event stream", url: "http://x/")
        XCTAssertEqual(failure(policy.connectionEnded(.refused(wrongType), decoder: ServerSentEventDecoder(), deliveredEvents: false)), .badResponse)
    }

    func testStatusErrorFailsWithoutReconnecting() {
        var policy = opened()
        let status = HTTPTransportError(code: .httpStatus, message: "500", url: "http://x/")
        XCTAssertEqual(failure(policy.connectionEnded(.failed(status), decoder: ServerSentEventDecoder(), deliveredEvents: false)), .httpStatus)
    }

    func testErrorsANewConnectionCannotMendFailAtOnce() {
        for code in [HTTPTransportError.Code.tlsFailure, .pinningFailed, .invalidURL, .interceptorFailed, .cancelled, .addressNotAllowed] {
            var policy = opened()
            let error = HTTPTransportError(code: code, message: "x", url: "http://x/")
            XCTAssertEqual(failure(policy.connectionEnded(.failed(error), decoder: ServerSentEventDecoder(), deliveredEvents: true)), code)
        }
    }

    func testFirstConnectionFailingBeforeItOpensFailsAtOnce() {
        var policy = ServerSentEventReconnection()
        XCTAssertEqual(failure(policy.connectionEnded(.failed(refused), decoder: ServerSentEventDecoder(), deliveredEvents: false)), .cannotConnect)
    }

    func testFiveFailedReconnectsInARowEndWithTheLastError() {
        var policy = opened()
        XCTAssertEqual(delay(policy.connectionEnded(.failed(reset), decoder: decoded("retry: 10\ndata: x\n\n"), deliveredEvents: true)), 10,
                       "the connection that delivered events was cut: reconnect")
        for attempt in 1..<ServerSentEventReconnection.maxFailedReconnects {
            XCTAssertEqual(delay(policy.connectionEnded(.failed(refused), decoder: ServerSentEventDecoder(), deliveredEvents: false)), 10,
                           "failed reconnect \(attempt)")
            XCTAssertEqual(policy.failedReconnects, attempt)
        }
        XCTAssertEqual(failure(policy.connectionEnded(.failed(reset), decoder: ServerSentEventDecoder(), deliveredEvents: false)), .badResponse)
    }

    func testAnEventResetsTheFailedReconnectCount() {
        var policy = opened()
        for _ in 1...4 { _ = policy.connectionEnded(.failed(refused), decoder: ServerSentEventDecoder(), deliveredEvents: false) }
        XCTAssertEqual(policy.failedReconnects, 4)
        XCTAssertNotNil(delay(policy.connectionEnded(.failed(reset), decoder: ServerSentEventDecoder(), deliveredEvents: true)))
        XCTAssertEqual(policy.failedReconnects, 0)
        for _ in 1...4 {
            XCTAssertNotNil(delay(policy.connectionEnded(.failed(refused), decoder: ServerSentEventDecoder(), deliveredEvents: false)))
        }
    }

    func testCleanEndWithoutEventsNeitherCountsNorResets() {
        var policy = opened()
        _ = policy.connectionEnded(.failed(refused), decoder: ServerSentEventDecoder(), deliveredEvents: false)
        XCTAssertNotNil(delay(policy.connectionEnded(.ended, decoder: ServerSentEventDecoder(), deliveredEvents: false)))
        XCTAssertEqual(policy.failedReconnects, 1)
    }

    // MARK: Helpers

    private func opened() -> ServerSentEventReconnection {
        var policy = ServerSentEventReconnection()
        policy.connectionOpened()
        return policy
    }

    private func decoded(_ stream: String) -> ServerSentEventDecoder {
        var decoder = ServerSentEventDecoder()
        _ = decoder.decode(Data(stream.utf8))
        return decoder
    }

    private func delay(_ decision: ServerSentEventReconnection.Decision) -> Int? {
        guard case .reconnect(let milliseconds) = decision else { return nil }
        return milliseconds
    }

    private func failure(_ decision: ServerSentEventReconnection.Decision) -> HTTPTransportError.Code? {
        guard case .fail(let error) = decision else { return nil }
        return error.code
    }
}
