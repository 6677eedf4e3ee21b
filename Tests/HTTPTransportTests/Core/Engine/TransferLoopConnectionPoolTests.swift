import Foundation
@testable import HTTPTransport
import XCTest

/// The session loop's connection pool keeps its connections while its transfers come and go:
/// libcurl's own bound (four per easy handle on the multi handle when a transfer ends) closed
/// connections whenever the transfers in flight dipped, and the next burst opened them again.
final class TransferLoopConnectionPoolTests: XCTestCase, WebSocketFixtures {
    private static let burst = 16

    /// The server's id of the connection each of `delays.count` concurrent sends came on.
    private func connections(_ transport: HTTPTransport, delays: [Double]) async throws -> [Int] {
        let base = server.http
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for delay in delays {
                group.addTask {
                    let response = try await transport.send(HTTPRequest(endpoint: base + "/delay/\(delay)"))
                    let echo = try JSONSerialization.jsonObject(with: response.body ?? Data()) as? [String: Any]
                    return try XCTUnwrap(echo?["connection_id"] as? Int)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    func testABurstsConnectionsAreKeptWhenItsTransfersEndOneByOne() async throws {
        let transport = HTTPTransport(session: Session())
        // The first burst's transfers end one at a time, 50 ms apart: the last few end with
        // one to three handles left on the multi handle, where libcurl's default bound (4 × 3)
        // is under the 16 connections open.
        let first = Set(try await connections(transport, delays: (1...Self.burst).map { 0.05 * Double($0) }))
        // The second burst overlaps (each answered after 0.3 s): it needs as many connections
        // as the first opened, at most, and every one of them was kept.
        let second = Set(try await connections(transport, delays: Array(repeating: 0.3, count: Self.burst)))
        let opened = second.subtracting(first)
        XCTAssertLessThanOrEqual(opened.count, Self.burst - first.count,
                                 "the second burst opened \(opened.count) connections though the first left \(first.count) open")
    }

    func testOpenWebSocketsDoNotTakeThePlacesOfTheConnectionsKeptForReuse() async throws {
        let peer = try peer()
        var configuration = Session.Configuration()
        configuration.maxConcurrentTransfers = 2
        let transport = HTTPTransport(session: Session(configuration: configuration))
        // As many sockets as the pool keeps for the session's 2 places hold connections of it;
        // the HTTP transfers' connections must still be kept.
        var sockets: [WebSocket] = []
        for _ in 0..<CurlMulti.minimumKeptConnections {
            sockets.append(try await transport.webSocket(HTTPRequest(endpoint: peer.ws("/echo"))))
        }
        let first = Set(try await connections(transport, delays: [0.05, 0.1]))
        let second = Set(try await connections(transport, delays: [0.3, 0.3]))
        let opened = second.subtracting(first)
        XCTAssertLessThanOrEqual(opened.count, 2 - first.count,
                                 "with \(sockets.count) WebSockets open the second pair opened \(opened.count) connections of its own")
        for socket in sockets { try await assertEchoes(socket, "still open") }
        let multi = try XCTUnwrap((transport.session.engine as? CurlEngine)?.loop?.multi as? CurlMulti)
        XCTAssertEqual(multi.reservedForWebSockets, sockets.count)
        // A refused handshake gives its place back.
        _ = try? await transport.webSocket(HTTPRequest(endpoint: peer.hostile("/status")))
        XCTAssertEqual(multi.reservedForWebSockets, sockets.count)
        for socket in sockets { try await socket.close() }
        // A closed socket's handle leaves the multi handle on the loop's thread, after `close`.
        let deadline = Date().addingTimeInterval(10)
        while multi.reservedForWebSockets > 0, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertEqual(multi.reservedForWebSockets, 0)
    }

    func testASessionWithOnePlaceKeepsAConnectionToEachOfAFewOrigins() async throws {
        var configuration = Session.Configuration()
        configuration.maxConcurrentTransfers = 1
        let transport = HTTPTransport(session: Session(configuration: configuration))
        // Two origins of the test server (its HTTP port by name and by address), sent to in turn.
        let origins = [server.http, server.http.replacingOccurrences(of: "127.0.0.1", with: "localhost")]
        XCTAssertNotEqual(origins[0], origins[1])
        var reused = 0
        for round in 0..<6 {
            let response = try await transport.send(HTTPRequest(endpoint: origins[round % 2] + "/get"))
            if response.metrics.connectionReused { reused += 1 }
        }
        XCTAssertEqual(reused, 4, "every send after each origin's first reuses its connection")
    }

    func testAHandshakeHoldsItsPlaceFromTheStartUntilItEnds() {
        // (The hub's counts are the loop thread's own; this test is that thread here.)
        let multi = ScriptedMulti()
        let hub = WebSocketHub(multi: multi)
        hub.handshake(ended: false)
        hub.handshake(ended: false)
        hub.handshake(ended: true)
        hub.handshake(ended: true)
        XCTAssertEqual(multi.reservations, [1, 2, 1, 0])
    }

    func testTheBoundIsTheSessionsTransferLimitAndStaysWithinItsCeiling() {
        // A configuration's limit reaches libcurl clamped: never under the minimum (0 is
        // libcurl 7.88's "no bound", libcurl 8's own), never a sum that overflows.
        for limit in [Int.min, -1, 0, 1, 1_000, Int.max] {
            var configuration = Session.Configuration()
            configuration.maxConcurrentTransfers = limit
            let transport = HTTPTransport(session: Session(configuration: configuration))
            let multi = (transport.session.engine as? CurlEngine)?.loop?.multi as? CurlMulti
            XCTAssertEqual(multi?.keptConnections, CurlMulti.keptConnections(for: limit), "limit \(limit)")
        }
        XCTAssertEqual(((HTTPTransport().session.engine as? CurlEngine)?.loop?.multi as? CurlMulti)?.keptConnections,
                       CurlMulti.keptConnections(for: 1_000))
        XCTAssertEqual(CurlMulti.keptConnections(for: 0), CurlMulti.minimumKeptConnections)
        XCTAssertEqual(CurlMulti.keptConnections(for: -5), CurlMulti.minimumKeptConnections)
        XCTAssertEqual(CurlMulti.keptConnections(for: 1), CurlMulti.minimumKeptConnections)
        XCTAssertEqual(CurlMulti.keptConnections(for: 32, openFiles: 1_024), 32)
        XCTAssertEqual(CurlMulti.keptConnections(for: .max, openFiles: .max), CurlMulti.keptConnectionsCeiling)
        // A quarter of the open-file limit at most: a burst to 1,000 origins under the common
        // soft limit of 1,024 leaves 256 connections idle, not 1,000.
        XCTAssertEqual(CurlMulti.keptConnections(for: 1_000, openFiles: 1_024), 256)
        XCTAssertEqual(CurlMulti.keptConnections(for: 1_000, openFiles: 40), CurlMulti.minimumKeptConnections)
        XCTAssertEqual(CurlMulti.keptConnections(for: 1_000, openFiles: 1 << 30), 1_000)
        XCTAssertGreaterThan(CurlMulti.openFileLimit(), 0)
    }
}
