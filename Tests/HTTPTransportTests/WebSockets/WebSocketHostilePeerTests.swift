import Foundation
@testable import HTTPTransport
import XCTest

/// What a hostile server (Tests/Server/websocket_peer.py) gets past libcurl, which checks the
/// frames' form but not what they hold: floods of empty messages and close frames that break
/// RFC 6455's rules.
final class WebSocketHostilePeerTests: XCTestCase, WebSocketFixtures {
    func testAFloodOfEmptyMessagesWhileNobodyReceivesStaysBounded() async throws {
        let peer = try peer()
        // 60,000 empty messages: 120 KB on the wire, all in the kernel's buffers at once.
        let count = 60_000
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.hostile("/emptyflood?count=\(count)")))
        var held = 0
        var unchanged = 0
        for _ in 0..<250 where unchanged < 5 {
            try await Task.sleep(for: .milliseconds(20))
            let now = socket.link.heldMessages
            unchanged = now == held && now > 0 ? unchanged + 1 : 0
            held = now
        }
        // (Each message held counts its size and its keeping, WebSocketLink.heldSize.)
        XCTAssertLessThanOrEqual(held, WebSocketLink.bufferLimit / WebSocketLink.heldSize(payloadCount: 0) + 1,
                                 "the socket held \(held) of \(count) empty messages while nobody received")
        for number in 0..<count {
            guard try await socket.receive() == .binary(Data()) else { return XCTFail("message \(number) was not empty") }
        }
        let last = try await socket.receive()
        XCTAssertEqual(last, .text("end"))
        try await socket.close()
    }
}
