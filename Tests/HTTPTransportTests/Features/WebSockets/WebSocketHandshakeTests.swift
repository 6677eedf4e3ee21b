import Foundation
import HTTPTransport
import XCTest

/// The handshake is a send: interceptors both ways, the address policy, the retrier that does not
/// repeat an answered handshake.
final class WebSocketHandshakeTests: XCTestCase, WebSocketFixtures, TLSFixtures {
    /// Records the statuses of the responses it sees.
    final class StatusRecorder: HTTPResponseInterceptor, @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [Int] = []
        var statuses: [Int] { lock.withLock { seen } }

        func intercept(response: RawResponse) -> RawResponse {
            lock.withLock { seen.append(response.statusCode?.rawValue ?? -1) }
            return response
        }
    }

    func testRequestInterceptorsShapeTheHandshakeAndResponseInterceptorsSeeThe101() async throws {
        let peer = try peer()
        let recorder = StatusRecorder()
        let transport = HTTPTransport(requestInterceptors: [SetHeaderInterceptor(name: "Authorization", value: "Bearer t0k3n")],
                                      responseInterceptors: [recorder])
        let socket = try await transport.webSocket(HTTPRequest(endpoint: peer.ws("/headers"), headers: ["X-Feed": "prices"]),
                                                   configuration: .init(protocols: ["chat"]))
        guard case .text(let json) = try await socket.receive() else { return XCTFail("no header echo") }
        let headers = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String])
        XCTAssertEqual(headers["authorization"], "Bearer t0k3n")
        XCTAssertEqual(headers["x-feed"], "prices")
        XCTAssertEqual(headers["sec-websocket-protocol"], "chat")
        XCTAssertEqual(headers["upgrade"]?.lowercased(), "websocket")
        XCTAssertEqual(recorder.statuses, [101])
        XCTAssertEqual(socket.subprotocol, "chat")
        try await socket.close()
    }

    func testCookiesSetByOneHandshakeGoWithTheNext() async throws {
        let peer = try peer()
        let cookies = CookieStorage()
        let transport = HTTPTransport(requestInterceptors: [AddCookieInterceptor(cookieProvider: cookies)],
                                      responseInterceptors: [ReceivedCookieInterceptor(cookieStorage: cookies)])
        let setter = try await transport.webSocket(HTTPRequest(endpoint: peer.ws("/cookie")))
        let closed = try await setter.receive()
        XCTAssertNil(closed)
        let socket = try await transport.webSocket(HTTPRequest(endpoint: peer.ws("/headers")))
        guard case .text(let json) = try await socket.receive() else { return XCTFail("no header echo") }
        let headers = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String])
        XCTAssertEqual(headers["cookie"], "feed=abc123")
        try await socket.close()
    }

    func testTheAddressPolicyAppliesToTheHandshake() async throws {
        let peer = try peer()
        var configuration = Session.Configuration()
        configuration.addressPolicy = .publicOnly
        let transport = HTTPTransport(session: Session(configuration: configuration))
        let error = await failure { _ = try await transport.webSocket(HTTPRequest(endpoint: peer.ws("/echo"))) }
        XCTAssertEqual(error?.code, .addressNotAllowed)
    }

    func testPinsApplyToAWSSHandshake() async throws {
        let peer = try peer()
        let wrong = try fingerprints("expired").sha256
        let pinnedWrong = HTTPTransport(security: caSecurity(pins: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha256(fingerprint: wrong))]))
        let error = await failure { _ = try await pinnedWrong.webSocket(HTTPRequest(endpoint: peer.wss("/echo"))) }
        XCTAssertEqual(error?.code, .pinningFailed)
        let right = try fingerprints("leaf").sha256
        let pinnedRight = HTTPTransport(security: caSecurity(pins: [TrustPolicyManager.Certificate(host: "localhost", fingerprint: .sha256(fingerprint: right))]))
        let socket = try await pinnedRight.webSocket(HTTPRequest(endpoint: peer.wss("/echo")))
        try await assertEchoes(socket, "pinned")
        try await socket.close()
    }

    func testASocketOutlivesTheTransportAndSessionThatOpenedIt() async throws {
        let peer = try peer()
        var transport: HTTPTransport? = HTTPTransport(session: Session())
        let socket = try await transport?.webSocket(HTTPRequest(endpoint: peer.ws("/echo")))
        transport = nil
        let open = try XCTUnwrap(socket)
        try await assertEchoes(open, "the transport is gone")
        try await open.close()
        let after = try await open.receive()
        XCTAssertNil(after)
    }

    func testARefusedHandshakeIsNotRetried() async throws {
        let peer = try peer()
        let recorder = StatusRecorder()
        let transport = HTTPTransport(responseInterceptors: [recorder], retrier: RetryPolicy(maxAttempts: 3, retryableStatusCodes: [HTTPStatusCode(rawValue: 403)], baseDelay: 0.01))
        let error = await failure { _ = try await transport.webSocket(HTTPRequest(endpoint: peer.hostile("/status"))) }
        XCTAssertEqual(error?.code, .httpStatus)
        XCTAssertEqual(recorder.statuses, [403])
    }

    func testTheBlockingFormOpensFromAWorkerThread() throws {
        let peer = try peer()
        let transport = HTTPTransport()
        let socket = try transport.webSocket(request: HTTPRequest(endpoint: peer.ws("/echo")))
        try socket.send(.text("blocking"))
        XCTAssertEqual(try socket.receive(), .text("blocking"))
        try socket.ping()
        try socket.close()
        XCTAssertNil(try socket.receive())
        XCTAssertThrowsError(try transport.webSocket(request: HTTPRequest(endpoint: peer.hostile("/status")))) { error in
            XCTAssertEqual((error as? HTTPTransportError)?.code, .httpStatus)
        }
    }
}
