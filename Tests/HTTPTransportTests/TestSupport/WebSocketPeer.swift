import Foundation
import HTTPTransport
import XCTest

/// The WebSocket peers of the test run (Tests/Server/websocket_peer.py): a strict RFC 6455 server
/// from PyPI (`websockets`), plain and over TLS with the test CA's leaf, and a hostile server of
/// our own. Started once, on 127.0.0.1; it exits when this process closes its stdin.
final class WebSocketPeer: @unchecked Sendable {
    static let shared: Result<WebSocketPeer, Error> = Result { try WebSocketPeer() }

    let ports: [String: Int]
    private let process: Process
    private let stdin: Pipe

    private init() throws {
        let script = TestServer.repositoryRoot.appendingPathComponent("Tests/Server/websocket_peer.py")
        let peer = try PythonPeerProcess(
            script: script, arguments: ["--certs", TestServer.shared.certificates.path],
            exitedEarly: "websocket_peer.py exited before printing its ports (run scripts/setup.sh: it installs `websockets`)")
        process = peer.process
        stdin = peer.stdin
        ports = peer.ports
    }

    func ws(_ path: String) -> String { "ws://127.0.0.1:\(ports["echo"] ?? 0)\(path)" }
    func wss(_ path: String) -> String { "wss://localhost:\(ports["echo_tls"] ?? 0)\(path)" }
    func hostile(_ path: String) -> String { "ws://127.0.0.1:\(ports["hostile"] ?? 0)\(path)" }
    /// A socket to a peer that reads nothing until `release(id)`, on a listener with small kernel
    /// buffers (full after tens of KiB, not loopback's megabytes).
    func stalling(id: String) -> String { "ws://127.0.0.1:\(ports["stall"] ?? 0)/stall?id=\(id)" }
    /// The plain GET that lets the stalled socket `id` read again.
    func release(_ id: String) -> String { "http://127.0.0.1:\(ports["hostile"] ?? 0)/release?id=\(id)" }
}

/// Shared by the WebSocket tests: the peer, and a skip where this libcurl has no WebSockets.
protocol WebSocketFixtures: XCTestCase {}

extension WebSocketFixtures {
    /// The peer; skips the test when this process's libcurl has no WebSockets.
    func peer() throws -> WebSocketPeer {
        guard HTTPTransport.supportsWebSockets else {
            throw XCTSkip("This libcurl (\(HTTPTransport.defaultUserAgent)) has no WebSockets: run with LIBCURL=8.")
        }
        return try WebSocketPeer.shared.get()
    }

    /// Sends `text` and checks that the next message is that text again (an echo).
    func assertEchoes(_ socket: WebSocket, _ text: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        try await socket.send(.text(text))
        let echoed = try await socket.receive()
        XCTAssertEqual(echoed, .text(text), file: file, line: line)
    }

    /// Runs `body` and returns the HTTPTransportError it threw (a failure when it threw none).
    func failure(_ body: () async throws -> Void, file: StaticString = #filePath,
                 line: UInt = #line) async -> HTTPTransportError? {
        do {
            try await body()
            XCTFail("expected a failure", file: file, line: line)
            return nil
        } catch {
            XCTAssertTrue(error is HTTPTransportError, "\(error)", file: file, line: line)
            return error as? HTTPTransportError
        }
    }
}
