import Foundation
@testable import HTTPTransport
import XCTest

/// The transfer loop's per-origin admission of transfers that wait to share an HTTP/2
/// connection (`MultiplexGate`): one connection's worth in flight, the rest in order, no limit
/// for an origin that answers over HTTP/1 or for transfers that do not wait to multiplex.
final class MultiplexGateTests: XCTestCase {
    private let limit = MultiplexGate.streamsPerOrigin
    private let http1_1 = 2, http2 = 3  // CURLINFO_HTTP_VERSION's CURL_HTTP_VERSION_1_1, _2_0

    private func transfers(_ count: Int, origin: String?, deadline: ContinuousClock.Instant? = nil) throws -> [LoopTransfer] {
        try (0..<count).map { _ in
            let handle = try XCTUnwrap(EasyHandle())
            return LoopTransfer(handle: handle, state: handle.transferState, request: RawRequest(url: URL(fileURLWithPath: "/")),
                                engine: nil, multiplexOrigin: origin, deadline: deadline)
        }
    }

    func testTheOriginKeyIgnoresCaseAndSpellsOutTheDefaultPort() throws {
        XCTAssertEqual(MultiplexGate.origin(of: try XCTUnwrap(URL(string: "HTTPS://Example.COM/a?b"))), "https://example.com:443")
        XCTAssertEqual(MultiplexGate.origin(of: try XCTUnwrap(URL(string: "https://example.com:8443/"))), "https://example.com:8443")
        XCTAssertNotEqual(MultiplexGate.origin(of: try XCTUnwrap(URL(string: "https://a.example/"))),
                          MultiplexGate.origin(of: try XCTUnwrap(URL(string: "https://b.example/"))))
    }

    /// Which async sends wait to multiplex is decided from the URL's kept text: `https:` in any
    /// case, as `URL.scheme` would say, and nothing else.
    func testTheURLTextsSchemeIsHTTPSInAnyCaseAndNothingElse() throws {
        for text in ["https://example.com/", "HTTPS://example.com", "HtTpS://a:8443/x", "https:"] {
            XCTAssertTrue(CurlEngine.startsWithHTTPSScheme(text), text)
        }
        for text in ["http://example.com/", "https", "httpsx://a/", "http:s//a", "ftps://a/", "", "h", "ws://a/",
                     "https//a", "httpS;//a", "\u{0}ttps://a"] {
            XCTAssertFalse(CurlEngine.startsWithHTTPSScheme(text), text)
        }
        for text in ["https://example.com/a?b", "HTTPS://Example.com", "http://127.0.0.1:8080/", "wss://a/", "HTTP://a/"] {
            let url = try XCTUnwrap(URL(string: text))
            XCTAssertEqual(CurlEngine.startsWithHTTPSScheme(url.absoluteString), url.scheme?.lowercased() == "https", text)
        }
    }

    func testOneConnectionsWorthGoesInAndTheRestFollowInOrderAsEachEnds() throws {
        var gate = MultiplexGate()
        let all = try transfers(limit + 3, origin: "https://h2.example:443")
        let admitted = all.filter { gate.admits($0) }
        XCTAssertEqual(admitted.count, limit)
        XCTAssertTrue(admitted.elementsEqual(all.prefix(limit), by: ===))
        XCTAssertEqual(gate.waitingCount, 3)
        // An HTTP/2 answer keeps the limit: each transfer that ends lets the next one in.
        XCTAssertTrue(gate.release(all[0], httpVersion: http2).elementsEqual([all[limit]], by: ===))
        XCTAssertTrue(gate.release(all[1], httpVersion: 0).elementsEqual([all[limit + 1]], by: ===))
        XCTAssertEqual(gate.waitingCount, 1)
    }

    func testAnOriginThatAnswersOverHTTP1LetsEveryWaitingTransferIn() throws {
        var gate = MultiplexGate()
        let all = try transfers(limit + 5, origin: "https://h1.example:443")
        _ = all.filter { gate.admits($0) }
        XCTAssertTrue(gate.release(all[0], httpVersion: http1_1).elementsEqual(all.suffix(5), by: ===))
        XCTAssertEqual(gate.waitingCount, 0)
        // And later ones go straight in while the origin has transfers in flight.
        let more = try transfers(1, origin: "https://h1.example:443")
        XCTAssertTrue(gate.admits(more[0]))
    }

    func testTransfersThatDoNotWaitToMultiplexAndOtherOriginsAreNotHeldBack() throws {
        var gate = MultiplexGate()
        for transfer in try transfers(limit, origin: "https://full.example:443") { XCTAssertTrue(gate.admits(transfer)) }
        XCTAssertTrue(try transfers(5, origin: nil).allSatisfy { gate.admits($0) })
        XCTAssertTrue(gate.admits(try transfers(1, origin: "https://other.example:443")[0]))
        XCTAssertFalse(gate.admits(try transfers(1, origin: "https://full.example:443")[0]))
    }

    func testAWaitingTransferThatIsCancelledLeavesTheQueueAndIsNeverAdmitted() throws {
        var gate = MultiplexGate()
        let all = try transfers(limit + 2, origin: "https://h2.example:443")
        _ = all.filter { gate.admits($0) }
        XCTAssertTrue(gate.withdraw(all[limit]))
        XCTAssertFalse(gate.withdraw(all[limit]), "withdrawn twice")
        XCTAssertFalse(gate.withdraw(all[0]), "an admitted transfer is not waiting")
        XCTAssertTrue(gate.release(all[0], httpVersion: http2).elementsEqual([all[limit + 1]], by: ===))
        XCTAssertEqual(gate.waitingCount, 0)
    }

    func testAWaitingTransferWhoseDeadlinePassedIsTakenOutAndTheRestKeepTheirOrder() throws {
        var gate = MultiplexGate()
        let now = ContinuousClock.now
        let origin = "https://h2.example:443"
        _ = try transfers(limit, origin: origin).filter { gate.admits($0) }
        let soon = try transfers(2, origin: origin, deadline: now + .seconds(1))
        let later = try transfers(1, origin: origin, deadline: now + .seconds(5))
        let never = try transfers(1, origin: origin)
        for transfer in [soon[0], later[0], soon[1], never[0]] { XCTAssertFalse(gate.admits(transfer)) }
        XCTAssertEqual(gate.earliestDeadline, now + .seconds(1))
        XCTAssertEqual(gate.expire(now: now + .milliseconds(999)).count, 0)
        XCTAssertTrue(gate.expire(now: now + .seconds(1)).elementsEqual(soon, by: ===))
        XCTAssertEqual(gate.earliestDeadline, now + .seconds(5))
        XCTAssertEqual(gate.waitingCount, 2)
        XCTAssertTrue(gate.withdraw(later[0]))
        XCTAssertEqual(gate.expire(now: now + .seconds(3600)).count, 0, "a transfer without a deadline waits")
        XCTAssertNil(gate.earliestDeadline)
        XCTAssertEqual(gate.waitingCount, 1)
    }

    /// Transfers let in before their deadline leave none behind once the gate is empty (the
    /// loop, which skips `expire` then, polled for the stale one without waiting: it spun).
    func testAnEmptyGateKeepsNoDeadline() throws {
        var gate = MultiplexGate()
        let origin = "https://h2.example:443"
        let all = try transfers(limit + 2, origin: origin, deadline: .now + .seconds(1))
        _ = all.filter { gate.admits($0) }
        XCTAssertNotNil(gate.earliestDeadline)
        var admitted: [LoopTransfer] = []
        for transfer in all.prefix(limit) { admitted += gate.release(transfer, httpVersion: http2) }
        XCTAssertEqual(admitted.count, 2)
        for transfer in admitted { _ = gate.release(transfer, httpVersion: http2) }
        XCTAssertFalse(gate.holdsTransfers)
        XCTAssertNil(gate.earliestDeadline, "a deadline outlived every transfer")
        // The same when the last waiting transfer was withdrawn (cancelled).
        let more = try transfers(limit + 1, origin: origin, deadline: .now + .seconds(1))
        _ = more.filter { gate.admits($0) }
        XCTAssertTrue(gate.withdraw(more[limit]))
        for transfer in more.prefix(limit) { _ = gate.release(transfer, httpVersion: http2) }
        XCTAssertFalse(gate.holdsTransfers)
        XCTAssertNil(gate.earliestDeadline)
    }

    func testAnOriginWithNothingLeftIsForgotten() throws {
        var gate = MultiplexGate()
        let first = try transfers(1, origin: "https://h1.example:443")[0]
        XCTAssertTrue(gate.admits(first))
        XCTAssertEqual(gate.release(first, httpVersion: http1_1).count, 0)
        // Forgotten: HTTP/1 is learned again, the limit applies until then.
        let again = try transfers(limit + 1, origin: "https://h1.example:443")
        XCTAssertEqual(again.filter { gate.admits($0) }.count, limit)
    }

    /// An HTTPS origin that answers over HTTP/1.1 lets the transfers waiting for it in as soon as
    /// one answer's head arrives, not when a transfer ends: 100 slow downloads (their heads at
    /// once, their bodies over 4 s) do not hold back the 101st request.
    func testAnHTTP1OriginsWaitingTransfersGoInOnceAHeadArrives() async throws {
        let security = Security(trustedRootCertificates: server.certificates.appendingPathComponent("ca.pem"))
        let transport = HTTPTransport(session: Session(security: security))
        let origin = server.https()
        let counter = HTTPTransport(session: Session(security: security))
        let count = { () async -> Int in
            let response = try? await counter.send(HTTPRequest(endpoint: origin + "/_admin/count"))
            return (try? response?.getJSONDictionary())?["count"] as? Int ?? 0
        }
        _ = try await counter.send(HTTPRequest(endpoint: origin + "/_admin/reset"))
        let slow = Task {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<MultiplexGate.streamsPerOrigin {
                    group.addTask { _ = await transport.result(for: HTTPRequest(endpoint: origin + "/drip?bytes=4&delay=1&n=\(index)"), progress: nil) }
                }
            }
        }
        // All 100 are in flight once the server has them (their heads go out at once).
        for _ in 0..<500 where await count() < MultiplexGate.streamsPerOrigin { try await Task.sleep(for: .milliseconds(20)) }
        let started = ContinuousClock.now
        let next = try await transport.send(HTTPRequest(endpoint: origin + "/json", timeout: 10))
        XCTAssertEqual(next.httpStatus, .ok)
        XCTAssertEqual(next.metrics.httpVersion, "1.1")
        XCTAssertLessThan(ContinuousClock.now - started, .milliseconds(2500), "the 101st request waited for a slow one to end")
        await slow.value
    }
}
