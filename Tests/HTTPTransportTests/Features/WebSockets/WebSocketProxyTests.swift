import Foundation
import HTTPTransport
import XCTest

/// A WebSocket through an HTTP proxy (tinyproxy): the handshake goes through a CONNECT tunnel,
/// for `ws://` too (libcurl 8.14 would otherwise send `GET ws://…` to the proxy).
final class WebSocketProxyTests: XCTestCase, WebSocketFixtures {
    static let tinyproxy = SharedPeer({ try TinyproxyPeer() }, stop: { $0.stop() })

    override class func tearDown() {
        tinyproxy.stop()
        super.tearDown()
    }

    func testAWebSocketGoesThroughTheProxysTunnel() async throws {
        let peer = try peer()
        let proxy = try Self.tinyproxy.get()
        var configuration = Session.Configuration()
        configuration.proxy = Proxy(proxy.url, noProxy: [])
        let transport = HTTPTransport(session: Session(configuration: configuration))
        let socket = try await transport.webSocket(HTTPRequest(endpoint: peer.ws("/echo")))
        try await assertEchoes(socket, "through the tunnel")
        try await socket.close()
        XCTAssertTrue(proxy.waitForLog("CONNECT 127.0.0.1:\(peer.ports["echo"] ?? 0)"), proxy.log)
    }
}
