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

    /// A peer that never stops sending (empty continuation frames: the message never grows)
    /// keeps the socket readable; the session's other exchanges still get their turns on the
    /// transfer loop.
    func testEndlessFragmentsDoNotHoldTheTransferLoop() async throws {
        let peer = try peer()
        let transport = HTTPTransport()
        let socket = try await transport.webSocket(HTTPRequest(endpoint: peer.hostile("/endless?seconds=20")),
                                                   configuration: .init(closeTimeout: 1))
        let waiting = Task { try? await socket.receive() }
        // (Held, the loop would answer only once the peer stopped, 20 s later; the flood costs
        // the send some time, more under a sanitizer on a busy machine.)
        let started = ContinuousClock.now
        let response = try await transport.send(HTTPRequest(endpoint: server.http + "/json", timeout: 19))
        XCTAssertEqual(response.httpStatus, .ok)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(12))
        // (Under AddressSanitizer the close waited for the flood's end: libcurl's curl_ws_recv
        // went on reading empty frames once the close frame was out.)
        try await socket.close()
        waiting.cancel()
        _ = await waiting.value
    }

    func testAPeersCloseFrameThatBreaksTheRulesFailsTheSocketAndIsAnsweredWithTheRightCode() async throws {
        let peer = try peer()
        // (The peer's close frame's payload in hex, and the code the client must answer with.)
        let cases: [(payload: String, answer: String, name: String)] = [
            ("03ed", "03ea", "1005, which is never sent"), ("03e7", "03ea", "999"), ("0bb7", "03ea", "2999, reserved"),
            ("03", "03ea", "a lone byte"), ("03e8ff62", "03ef", "a reason that is not UTF-8"),
        ]
        for (payload, answer, name) in cases {
            let report = FileManager.default.temporaryDirectory.appendingPathComponent("ws-close-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: report) }
            let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.hostile("/closewith?payload=\(payload)&report=\(report.path)")))
            let error = await failure { _ = try await socket.receive() }
            XCTAssertEqual(error?.code, .badResponse, name)
            let answered = try await Self.answer(in: report.path)
            XCTAssertEqual(answered, answer, name)
        }
    }

    func testAPeersValidCloseFrameIsEchoed() async throws {
        let peer = try peer()
        for (payload, name) in [("0fa0627965", "4000 with a reason"), ("03f2", "1010"), ("", "no code")] {
            let report = FileManager.default.temporaryDirectory.appendingPathComponent("ws-close-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: report) }
            let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.hostile("/closewith?payload=\(payload)&report=\(report.path)")))
            let last = try await socket.receive()
            XCTAssertNil(last, name)
            let answered = try await Self.answer(in: report.path)
            XCTAssertEqual(answered, payload.isEmpty ? "-" : String(payload.prefix(4)), name)
        }
    }

    func testAfterTheClientsCloseABrokenAnswerStillEndsTheSocketNormally() async throws {
        let peer = try peer()
        for payload in ["03ed", "03", "03e8ff"] {
            let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.hostile("/answer?payload=\(payload)")))
            try await socket.close()
            let after = try await socket.receive()
            XCTAssertNil(after, payload)
        }
    }

    /// The close frame the hostile server got back, in hex, once it wrote it (at most 10 s).
    private static func answer(in path: String) async throws -> String {
        for _ in 0..<500 {
            let file = open(path, O_RDONLY)
            if file >= 0 {
                defer { close(file) }
                var bytes = [UInt8](repeating: 0, count: 300)
                let count = read(file, &bytes, bytes.count)
                if count > 0 { return String(decoding: bytes[0..<count], as: UTF8.self) }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return "no report"
    }
}
