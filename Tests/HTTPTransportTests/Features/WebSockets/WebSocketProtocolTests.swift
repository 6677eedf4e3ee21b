import Foundation
import HTTPTransport
import XCTest

/// The protocol's rules against a hostile server of our own (Tests/Server/websocket_peer.py),
/// which echoes the client's close code: what it sends back is what the client closed with.
final class WebSocketProtocolTests: XCTestCase, WebSocketFixtures {
    func testTextThatIsNotUTF8ClosesWith1007AndFailsAsABadResponse() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.hostile("/badutf8")))
        let first = try await socket.receive()
        XCTAssertEqual(first, .text("ok"))
        let error = await failure { _ = try await socket.receive() }
        XCTAssertEqual(error?.code, .badResponse)
        try await socket.close()
        XCTAssertEqual(socket.closeCode, .invalidFramePayloadData)
        let again = await failure { _ = try await socket.receive() }
        XCTAssertEqual(again?.code, .badResponse)
    }

    func testAMessageOverMaxMessageSizeClosesWith1009AndFailsAsTooLarge() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.hostile("/oversize?size=70000")),
                                                         configuration: .init(maxMessageSize: 65536))
        let error = await failure { for try await _ in socket.messages {} }
        XCTAssertEqual(error?.code, .responseTooLarge)
        try await socket.close()
        XCTAssertEqual(socket.closeCode, .messageTooBig)
    }

    func testAMessageOfExactlyMaxMessageSizeArrives() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.hostile("/oversize?size=65536")),
                                                         configuration: .init(maxMessageSize: 65536))
        let message = try await socket.receive()
        XCTAssertEqual(message, .binary(Data(count: 65536)))
        try await socket.close()
        XCTAssertEqual(socket.closeCode, .normalClosure)
    }

    func testAConnectionThatJustEndsIsAnAbnormalClosure() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.hostile("/noclose")))
        let last = try await socket.receive()
        XCTAssertEqual(last, .text("last words"))
        let error = await failure { _ = try await socket.receive() }
        XCTAssertEqual(error?.code, .badResponse)
        XCTAssertEqual(socket.closeCode, .abnormalClosure)
    }

    func testFragmentsAreReassembledAcrossPingsAndPongs() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.hostile("/fragmented")))
        var received: [WebSocketMessage] = []
        for _ in 0..<3 { if let message = try await socket.receive() { received.append(message) } }
        XCTAssertEqual(received, [.text("Hello, wörld"), .binary(Data([1, 2, 3])), .text("")])
        try await assertEchoes(socket, "still here")
        try await socket.close(code: WebSocketCloseCode(rawValue: 4321), reason: "bye")
        XCTAssertEqual(socket.closeCode, WebSocketCloseCode(rawValue: 4321))
    }

    func testAnAnswerOtherThan101FailsWithItsStatusAndHeadNotFollowingRedirects() async throws {
        let peer = try peer()
        let transport = HTTPTransport(useDefaultValidation: false)
        let error = await failure { _ = try await transport.webSocket(HTTPRequest(endpoint: peer.hostile("/status"))) }
        XCTAssertEqual(error?.code, .httpStatus)
        XCTAssertEqual(error?.httpStatusCode?.rawValue, 403)
        // (libcurl ends a refused upgrade at its head: the body it had not read is not attached.)
        XCTAssertEqual(error?.responseHeaders["Content-Type"], "text/plain")
        let redirect = await failure { _ = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.hostile("/redirect"))) }
        XCTAssertEqual(redirect?.code, .httpStatus)
        XCTAssertEqual(redirect?.httpStatusCode?.rawValue, 302)
    }

    func testAPingWithoutPongTimesOutWithinTheRequestsTimeout() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.hostile("/nopong"), timeout: 1))
        let started = ContinuousClock.now
        let error = await failure { try await socket.ping() }
        XCTAssertEqual(error?.code, .timeout)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        // The socket is still open.
        try await assertEchoes(socket, "echo")
        try await socket.close()
    }

    func testTheKeepAliveFailsASocketWhosePeerAnswersNoPing() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.hostile("/nopong")),
                                                         configuration: .init(pingInterval: 0.2))
        let started = ContinuousClock.now
        let error = await failure { _ = try await socket.receive() }
        XCTAssertEqual(error?.code, .timeout)
        let waited = ContinuousClock.now - started
        XCTAssertGreaterThanOrEqual(waited, .milliseconds(350))
        XCTAssertLessThan(waited, .seconds(3))
        XCTAssertEqual(socket.closeCode, .abnormalClosure)
    }

    func testTheKeepAliveKeepsAnIdleSocketWithAnAnsweringPeerOpen() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.ws("/echo")),
                                                         configuration: .init(pingInterval: 0.25))
        // Idle for four intervals (the time is what is tested): a ping each, each answered.
        try await Task.sleep(for: .seconds(1))
        try await assertEchoes(socket, "still open")
        XCTAssertNil(socket.closeCode)
        try await socket.close()
    }

    func testABadConfigurationFailsBeforeAnythingIsSent() async throws {
        let peer = try peer()
        let request = HTTPRequest(endpoint: peer.ws("/echo"))
        for configuration in [WebSocket.Configuration(maxMessageSize: 0), .init(pingInterval: -1), .init(closeTimeout: .nan),
                              .init(protocols: ["two words"])] {
            let error = await failure { _ = try await HTTPTransport().webSocket(request, configuration: configuration) }
            XCTAssertEqual(error?.code, .encodingFailed)
        }
    }
}
