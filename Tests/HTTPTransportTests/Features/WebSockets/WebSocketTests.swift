import Foundation
import HTTPTransport
import XCTest

/// WebSockets against a strict RFC 6455 server from PyPI (`websockets`): messages both ways,
/// both close handshakes, TLS with the test CA, the handshake as a send, pings.
final class WebSocketTests: XCTestCase, WebSocketFixtures {
    func testWithoutWebSocketsInLibcurlTheCallFailsAtOnceSayingHowToGetThem() async throws {
        guard !HTTPTransport.supportsWebSockets else { throw XCTSkip("this libcurl has WebSockets") }
        let transport = HTTPTransport()
        let request = HTTPRequest(endpoint: "ws://127.0.0.1:9/never")
        let error = await failure { _ = try await transport.webSocket(request) }
        XCTAssertEqual(error?.code, .unsupported)
        XCTAssertEqual(error?.code.rawValue, 19)
        XCTAssertTrue(error?.message.contains("bookworm-backports") == true, error?.message ?? "")
        XCTAssertThrowsError(try transport.webSocket(request: request)) { error in
            XCTAssertEqual((error as? HTTPTransportError)?.code, .unsupported)
        }
    }

    func testTextAndBinaryMessagesEchoInOrderAndTheClientsCloseEndsTheMessages() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.ws("/echo")))
        XCTAssertEqual(socket.httpStatus.rawValue, 101)
        XCTAssertEqual(socket.header(named: "upgrade")?.lowercased(), "websocket")
        XCTAssertNil(socket.subprotocol)
        let sent: [WebSocketMessage] = [.text("hello"), .binary(Data([0, 1, 2, 255])), .text(""), .text("wörld ✓"),
                                        .binary(Data(repeating: 7, count: 300_000))]
        for message in sent { try await socket.send(message) }
        var received: [WebSocketMessage] = []
        for try await message in socket.messages {
            received.append(message)
            if received.count == sent.count { break }
        }
        XCTAssertEqual(received, sent)
        try await socket.close(code: .normalClosure, reason: "done")
        XCTAssertEqual(socket.closeCode, .normalClosure)
        let afterClose = try await socket.receive()
        XCTAssertNil(afterClose)
        let sendAfterClose = await failure { try await socket.send(.text("late")) }
        XCTAssertEqual(sendAfterClose?.code, .cancelled)
    }

    func testThePeersCloseIsEchoedAndFinishesTheMessagesNormally() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.ws("/close")))
        try await socket.send(.text("go"))
        var count = 0
        for try await _ in socket.messages { count += 1 }
        XCTAssertEqual(count, 0)
        XCTAssertEqual(socket.closeCode, WebSocketCloseCode(rawValue: 4000))
        XCTAssertEqual(socket.closeReason, "bye")
        let second = await failure { for try await _ in socket.messages {} }
        XCTAssertEqual(second?.code, .other)
    }

    func testWSSWithTheTestCAAndARefusalWithoutIt() async throws {
        let peer = try peer()
        let ca = TestServer.shared.certificates.appendingPathComponent("ca.pem")
        let trusted = HTTPTransport(security: Security(trustedRootCertificates: ca))
        let socket = try await trusted.webSocket(HTTPRequest(endpoint: peer.wss("/echo")))
        try await assertEchoes(socket, "over TLS")
        try await socket.close()
        let error = await failure { _ = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.wss("/echo"))) }
        XCTAssertEqual(error?.code, .tlsFailure)
    }

    func testTheChosenSubprotocolIsKnown() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.ws("/protocol")),
                                                         configuration: .init(protocols: ["superchat", "chat"]))
        XCTAssertEqual(socket.subprotocol, "superchat")
        let announced = try await socket.receive()
        XCTAssertEqual(announced, .text("superchat"))
        try await socket.close()
    }

    func testPingReturnsWhenThePongArrives() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.ws("/echo")))
        try await socket.ping(Data("are you there".utf8))
        try await socket.ping()
        let tooLong = await failure { try await socket.ping(Data(count: 126)) }
        XCTAssertEqual(tooLong?.code, .encodingFailed)
        try await socket.close()
    }

    func testACloseCodeThatIsNeverSentFailsAndALongReasonIsCutOnACharacter() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.ws("/echo")))
        for code in [WebSocketCloseCode.noStatusReceived, .abnormalClosure, WebSocketCloseCode(rawValue: 999),
                     WebSocketCloseCode(rawValue: 1015), WebSocketCloseCode(rawValue: 5000)] {
            let refused = await failure { try await socket.close(code: code) }
            XCTAssertEqual(refused?.code, .encodingFailed, "\(code.rawValue)")
            let blocking: () throws -> Void = { try socket.close(code: code) }
            XCTAssertThrowsError(try blocking(), "\(code.rawValue), blocking")
        }
        // Still open: nothing went out.
        try await assertEchoes(socket, "still open")
        // 200 two-byte characters: the reason goes cut to 61 of them (122 of the 123 bytes).
        try await socket.close(code: .normalClosure, reason: String(repeating: "é", count: 200))
        XCTAssertEqual(socket.closeCode, .normalClosure)
        XCTAssertEqual(socket.closeReason, String(repeating: "é", count: 61))
    }

    func testAFeedArrivesWhileTheSocketIdlesOnTheLoop() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.ws("/feed")))
        var ticks: [WebSocketMessage] = []
        for try await message in socket.messages {
            ticks.append(message)
            if ticks.count == 3 { break }
        }
        XCTAssertEqual(ticks, [.text("tick 0"), .text("tick 1"), .text("tick 2")])
        try await socket.close(code: .goingAway)
    }
}
