import Foundation
@testable import HTTPTransport
import XCTest

/// The outgoing queue against a peer that stops reading (Tests/Server/websocket_peer.py's
/// /stall): a cancelled send is withdrawn exactly when none of it went out, and the queue's
/// bound holds for empty messages too.
final class WebSocketSendQueueTests: XCTestCase, WebSocketFixtures {
    func testACancelledSendIsNeverSentUnlessItsFrameHadBegun() async throws {
        let peer = try peer()
        let transport = HTTPTransport()
        let id = UUID().uuidString
        let socket = try await transport.webSocket(HTTPRequest(endpoint: peer.stalling(id: id)))
        let link = socket.link
        // 8 MiB: more than the queue's bound (its sender waits until libcurl took it all) and
        // than the kernel's buffers hold (the stall listener's are small; loopback's default ones
        // hold a few MiB): its frame begins and stalls.
        let big = Data(repeating: 0xAB, count: 8 << 20)
        let bigSize = WebSocketLink.heldSize(payloadCount: big.count)
        let first = Self.sending(.binary(big), on: socket)
        try await Self.waitUntil("the big message taken by the loop") { link.queuedBytes == bigSize && link.untakenCommands == 0 }
        // (Taken on a later turn of the loop than the big one: the big one's frame had begun.)
        let second = Self.sending(.text("withdrawn"), on: socket)
        try await Self.waitUntil("the second message taken by the loop") {
            link.queuedBytes == bigSize + WebSocketLink.heldSize(payloadCount: 9) && link.untakenCommands == 0
        }
        second.cancel()
        let secondCode = await second.value
        XCTAssertEqual(secondCode, .cancelled)
        XCTAssertEqual(link.queuedBytes, bigSize, "the withdrawn message still counts in the queue")
        first.cancel()
        let firstCode = await first.value
        XCTAssertEqual(firstCode, .other, "a partly sent message's sender must hear it was (partly) sent")

        let third = Self.sending(.text("after"), on: socket)
        let released = try await transport.send(HTTPRequest(endpoint: peer.release(id)))
        XCTAssertEqual(released.httpStatus.rawValue, 204)
        let echoedBig = try await socket.receive()
        XCTAssertEqual(echoedBig, .binary(big), "the partly sent message went out whole")
        let next = try await socket.receive()
        XCTAssertEqual(next, .text("after"), "the withdrawn message went out")
        let thirdCode = await third.value
        XCTAssertNil(thirdCode)
        try await socket.close()
    }

    func testEmptyMessagesToAPeerThatStopsReadingAreBoundedAndTheSenderWaits() async throws {
        let peer = try peer()
        let transport = HTTPTransport()
        let id = UUID().uuidString
        let socket = try await transport.webSocket(HTTPRequest(endpoint: peer.stalling(id: id)), configuration: .init(closeTimeout: 1))
        let link = socket.link
        let answered = Protected(0)
        // (Bounded, and it stops once cancelled: without the bound the queue would take all of them.)
        let sender = Task { () -> HTTPTransportError.Code? in
            for _ in 0..<3_000_000 where !Task.isCancelled {
                do {
                    try await socket.send(.binary(Data()))
                } catch {
                    return (error as? HTTPTransportError)?.code ?? .other
                }
                answered.withLock { $0 += 1 }
            }
            return nil
        }
        // A message beyond the bound is queued only with its sender waiting for libcurl to take
        // it. (Watched as the sender held back, not as the queue over the bound: the loop may
        // hand part of the queue to the kernel again at once, and stall again with the sender's
        // message still queued, in the 5 ms between two looks.)
        try await Self.waitUntil("a sender waiting on a full queue", seconds: 60) { link.queueHighWater.sendersHeldBack > 0 }
        let highWater = link.queueHighWater
        XCTAssertGreaterThan(highWater.bytes, WebSocketLink.bufferLimit)
        XCTAssertLessThanOrEqual(highWater.bytes, WebSocketLink.bufferLimit + WebSocketLink.heldSize(payloadCount: 0))
        XCTAssertEqual(highWater.sendersHeldBack, 1)
        let answeredWhenFull = answered.value
        print("WebSockets: \(answeredWhenFull) empty messages sent before the queue (\(highWater.bytes / WebSocketLink.heldSize(payloadCount: 0)) of them) was full")
        sender.cancel()
        let code = await sender.value
        XCTAssertEqual(code, .cancelled)
        XCTAssertEqual(answered.value, answeredWhenFull, "a send was answered while the queue was full")
        XCTAssertEqual(link.queueHighWater.sendersHeldBack, 1, "the sender went on after it was held back")
        XCTAssertLessThanOrEqual(link.queuedBytes, WebSocketLink.bufferLimit, "the cancelled message stayed in the queue")
        // The socket's own session still serves other requests while its queue is full.
        let started = ContinuousClock.now
        var release = HTTPRequest(endpoint: peer.release(id))
        release.timeout = 15
        let released = try await transport.send(release)
        print("WebSockets: a request on the socket's session took \(ContinuousClock.now - started) with its queue full")
        XCTAssertEqual(released.httpStatus.rawValue, 204)
        // One turn of the loop at the socket per round, not one per send queued since the last
        // round (each turn tries the socket: tens of thousands made rounds of seconds). How many
        // sends a round gathers depends on the loop's speed against the sender's: 300-800 per
        // turn unsanitized, 6-33 under ThreadSanitizer (1,273-7,240 turns for 42-45k sends).
        print("WebSockets: \(link.turns) turns of the loop at the socket for \(answered.value) sends")
        XCTAssertLessThan(link.turns, answered.value / 3, "the loop took a turn at the socket for each send")
        try await socket.close()
    }

    /// A burst of queued sends goes out over several turns of the loop (at most `sendsPerTurn`
    /// frames each: one turn carrying 8,000 held the loop's other transfers for tens of ms), and
    /// whole and in order.
    func testABurstOfSendsGoesOutOverSeveralTurnsAndInOrder() async throws {
        let peer = try peer()
        let socket = try await HTTPTransport().webSocket(HTTPRequest(endpoint: peer.ws("/echo")))
        let count = 8_000
        // (Each send is answered once queued: the queue grows faster than frames go out.)
        for number in 0..<count { try await socket.send(.text(String(number))) }
        for number in 0..<count {
            guard let message = try await socket.receive() else { return XCTFail("the socket ended at \(number)") }
            guard message == .text(String(number)) else { return XCTFail("message \(number) came back as \(message)") }
        }
        let most = socket.link.mostCarriedInATurn
        print("WebSockets: at most \(most) frames went out in one turn of the loop, in \(socket.link.turns) turns")
        XCTAssertLessThanOrEqual(most, WebSocketLink.sendsPerTurn)
        try await socket.close()
    }

    func testCloseToAPeerThatStopsReadingReturnsAfterCloseTimeout() async throws {
        let peer = try peer()
        let transport = HTTPTransport()
        let id = UUID().uuidString
        let socket = try await transport.webSocket(HTTPRequest(endpoint: peer.stalling(id: id)), configuration: .init(closeTimeout: 1))
        let link = socket.link
        // (Its frame stalls part sent: the close frame waits behind it and cannot go out.)
        let big = Data(repeating: 0xAB, count: 8 << 20)
        let sender = Self.sending(.binary(big), on: socket)
        try await Self.waitUntil("the big message taken by the loop") {
            link.queuedBytes == WebSocketLink.heldSize(payloadCount: big.count) && link.untakenCommands == 0
        }
        let started = ContinuousClock.now
        let closed = Protected<HTTPTransportError.Code??>(nil)
        let closer = Task {
            do {
                try await socket.close()
                closed.withLock { $0 = .some(nil) }
            } catch {
                closed.withLock { $0 = .some((error as? HTTPTransportError)?.code ?? .other) }
            }
        }
        try await Self.waitUntil("close to return", seconds: 15) { closed.value != nil }
        let took = ContinuousClock.now - started
        XCTAssertGreaterThanOrEqual(took, .seconds(1), "close returned before closeTimeout")
        XCTAssertEqual(closed.value, .some(nil), "close threw")
        XCTAssertEqual(socket.closeCode, .abnormalClosure)
        XCTAssertTrue(link.isGone, "the connection was kept")
        // (Else the close frame goes out once the peer reads again.)
        _ = try await HTTPTransport().send(HTTPRequest(endpoint: peer.release(id)))
        await closer.value
        let sent = await sender.value
        XCTAssertNotNil(sent, "the big message's send succeeded on a dropped connection")
    }

    func testADroppedSocketWhosePeerStoppedReadingLetsGoOfItsConnectionAfterCloseTimeout() async throws {
        let peer = try peer()
        let transport = HTTPTransport()
        let id = UUID().uuidString
        let link = try await Self.stalledLink(on: transport, at: peer.stalling(id: id))
        // (The WebSocket is gone: its 1001 close waits behind the stalled frame.)
        try await Self.waitUntil("the dropped socket to let go of its connection", seconds: 15) { link.isGone }
        XCTAssertEqual(link.closeStatus?.code, .abnormalClosure)
        _ = try await HTTPTransport().send(HTTPRequest(endpoint: peer.release(id)))
    }

    /// The link of a socket (closeTimeout 1 s) whose 8 MiB frame stalls part sent; the
    /// `WebSocket` itself is dropped on return.
    static func stalledLink(on transport: HTTPTransport, at url: String) async throws -> WebSocketLink {
        let socket = try await transport.webSocket(HTTPRequest(endpoint: url), configuration: .init(closeTimeout: 1))
        let link = socket.link
        let big = Data(repeating: 0xAB, count: 8 << 20)
        _ = link.send(flags: WebSocketMessage.binary(big).frameFlags, payload: big)
        try await waitUntil("the big message taken by the loop") {
            link.queuedBytes == WebSocketLink.heldSize(payloadCount: big.count) && link.untakenCommands == 0
        }
        return link
    }

    /// A task sending `message`: the code its send threw, nil when none.
    static func sending(_ message: WebSocketMessage, on socket: WebSocket) -> Task<HTTPTransportError.Code?, Never> {
        Task {
            do {
                try await socket.send(message)
                return nil
            } catch {
                return (error as? HTTPTransportError)?.code ?? .other
            }
        }
    }

    /// Polls `condition` (every 5 ms) until it holds; fails after `seconds`.
    static func waitUntil(_ what: String, seconds: Int = 30, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            guard ContinuousClock.now < deadline else { return XCTFail("waited \(seconds) s for \(what)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
