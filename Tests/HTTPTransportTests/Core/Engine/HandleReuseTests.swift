import Foundation
import HTTPTransport
import XCTest

/// Sends in a row on one transport reuse one easy handle, and a send that repeats the previous
/// one's setup keeps the handle's options instead of resetting them. Each send must still carry
/// exactly its own URL, method, headers, body and time-out, whatever went before it.
final class HandleReuseTests: XCTestCase {
    let transport = HTTPTransport()

    private func headers(_ response: HTTPResponse) throws -> [String: String] {
        try XCTUnwrap(try echo(response)["headers_dict"] as? [String: String])
    }

    private func headerLines(_ response: HTTPResponse, named name: String) throws -> [String] {
        let pairs = try XCTUnwrap(try echo(response)["headers"] as? [[String]])
        return pairs.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }

    func testRepeatedGETsCarryOnlyTheirOwnURLAndHeaders() throws {
        let first = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything/one?n=1")
            .with(header: "X-Only-First", value: "yes").with(header: "X-Value", value: "a"))
        let second = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything/two?n=2")
            .with(header: "X-Value", value: "b"))
        let third = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything/two?n=2")
            .with(header: "X-Value", value: "b"))
        let fourth = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything/three"))

        XCTAssertEqual(try echo(first)["path"] as? String, "/anything/one")
        XCTAssertEqual(try headers(first)["x-only-first"], "yes")
        XCTAssertEqual(try headers(first)["x-value"], "a")
        XCTAssertEqual(try echo(second)["path"] as? String, "/anything/two")
        XCTAssertEqual(try echo(second)["query"] as? String, "n=2")
        XCTAssertNil(try headers(second)["x-only-first"])
        XCTAssertEqual(try headers(second)["x-value"], "b")
        XCTAssertEqual(try headers(third)["x-value"], "b")
        XCTAssertEqual(try echo(fourth)["query"] as? String, "")
        XCTAssertNil(try headers(fourth)["x-value"])
        // One kept-alive connection for all four.
        let connections = Set(try [first, second, third, fourth].map { try XCTUnwrap(try echo($0)["connection_id"] as? Int) })
        XCTAssertEqual(connections.count, 1)
    }

    func testRepeatedSmallPOSTsSendEachBodyWhole() throws {
        // Larger, smaller, larger again: a stale length or a previous copy must not leak.
        for (index, size) in [1000, 10, 3000, 1, 64 * 1024].enumerated() {
            let body = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
            let response = try sendOK(transport, DataUploadHTTPRequest(endpoint: server.http + "/post", data: body))
            XCTAssertEqual(try echo(response)["body_base64"] as? String, body.base64EncodedString(), "body \(index)")
            XCTAssertEqual(try headers(response)["content-length"], "\(size)")
        }
    }

    func testMethodsChangingBetweenSendsAreEachSentAsSuch() throws {
        let url = server.http + "/anything"
        let sequence: [(HTTPRequest.HTTPMethod, String?)] = [
            (.get, nil), (.delete, nil), (.get, nil), (.post, "one"), (.post, "two"), (.get, nil),
            (.put, "three"), (.options, nil), (.patch, "four"), (.get, nil),
        ]
        for (method, text) in sequence {
            let response: HTTPResponse
            if let text {
                response = try sendOK(transport, DataUploadHTTPRequest(httpMethod: method, endpoint: url, data: Data(text.utf8)))
            } else {
                response = try sendOK(transport, HTTPRequest(httpMethod: method, endpoint: url))
            }
            XCTAssertEqual(try echo(response)["method"] as? String, method.rawValue)
            XCTAssertEqual(try echo(response)["body_text"] as? String, text ?? "", "\(method)")
            if text == nil { XCTAssertNil(try headers(response)["content-length"], "\(method) sent a body") }
        }
        let head = try sendOK(transport, HTTPRequest(httpMethod: .head, endpoint: url))
        XCTAssertEqual(head.httpStatus, .ok)
        XCTAssertTrue(head.body?.isEmpty ?? true)
        let afterHead = try sendOK(transport, HTTPRequest(endpoint: url))
        XCTAssertEqual(try echo(afterHead)["method"] as? String, "GET")
    }

    func testATimeOutChangedBetweenSendsTakesEffect() throws {
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything", timeout: 30))
        let slow = transport.send(request: HTTPRequest(endpoint: server.http + "/delay/5", timeout: 0.3))
        XCTAssertEqual(slow.error?.code, .timeout)
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything", timeout: 30))
    }

    func testASendThatFailsBeforeSendingLeavesTheNextOneClean() throws {
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything"))
        let broken = transport.send(request: HTTPRequest(endpoint: server.http + "/anything")
            .with(header: "X-Broken", value: "a\r\nInjected: yes"))
        XCTAssertEqual(broken.error?.code, .encodingFailed)
        let next = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything"))
        XCTAssertNil(try headers(next)["x-broken"])
        XCTAssertNil(try headers(next)["injected"])
    }

    func testDownloadsAndCancellableSendsInBetweenLeavePlainSendsWorking() throws {
        let directory = try temporaryDirectory("reuse")
        let destination = directory.appendingPathComponent("bytes.bin")

        let before = try sendOK(transport, HTTPRequest(endpoint: server.http + "/bytes/100"))
        XCTAssertEqual(before.body?.count, 100)
        let download = try sendOK(transport, HTTPRequest(endpoint: server.http + "/bytes/5000").downloading(to: destination))
        XCTAssertEqual(download.fileURL, destination)
        XCTAssertNil(download.body)
        let after = try sendOK(transport, HTTPRequest(endpoint: server.http + "/bytes/300"))
        XCTAssertEqual(after.body?.count, 300)
        XCTAssertNil(after.fileURL)
        let controlled = transport.send(request: HTTPRequest(endpoint: server.http + "/bytes/200"),
                                        control: TransferControl(cancellation: CancellationHandle()))
        XCTAssertEqual(controlled.value?.body?.count, 200)
        let last = try sendOK(transport, HTTPRequest(endpoint: server.http + "/bytes/400"))
        XCTAssertEqual(last.body?.count, 400)
        XCTAssertEqual(try Data(contentsOf: destination).count, 5000)
    }

    func testAcceptEncodingIsSentOnceAndARequestsOwnValueReplacesIt() throws {
        let plain = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything"))
        let offered = try headerLines(plain, named: "Accept-Encoding")
        XCTAssertEqual(offered.count, 1)
        XCTAssertTrue(offered.first?.contains("gzip") ?? false, "\(offered)")

        let own = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything").with(header: "Accept-Encoding", value: "identity"))
        XCTAssertEqual(try headerLines(own, named: "Accept-Encoding"), ["identity"])

        let identity = try sendOK(transport, HTTPRequest(endpoint: server.http + "/gzip").with(header: "accept-encoding", value: "identity"))
        XCTAssertNil(identity.header(named: "Content-Encoding"))
        XCTAssertEqual(try identity.getJSONDictionary()?["gzipped"] as? Bool, true)

        let compressed = try sendOK(transport, HTTPRequest(endpoint: server.http + "/gzip"))
        XCTAssertEqual(compressed.header(named: "Content-Encoding"), "gzip")
        XCTAssertEqual(try compressed.getJSONDictionary()?["gzipped"] as? Bool, true)
    }

    func testAUserAgentOfTheRequestReplacesTheDefaultOnTheNextSend() throws {
        let first = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything"))
        let second = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything").with(header: "User-Agent", value: "Worker/2"))
        let third = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything"))
        XCTAssertEqual(try headerLines(first, named: "User-Agent"), [HTTPTransport.defaultUserAgent])
        XCTAssertEqual(try headerLines(second, named: "User-Agent"), ["Worker/2"])
        XCTAssertEqual(try headerLines(third, named: "User-Agent"), [HTTPTransport.defaultUserAgent])
    }

    func testMetricsDescribeEachExchange() throws {
        let fresh = HTTPTransport()
        let first = try sendOK(fresh, HTTPRequest(endpoint: server.http + "/bytes/1234"))
        let second = try sendOK(fresh, HTTPRequest(endpoint: server.http + "/bytes/99"))
        for (response, size) in [(first, 1234), (second, 99)] {
            let metrics = response.metrics
            XCTAssertEqual(metrics.remoteAddress, "127.0.0.1")
            XCTAssertEqual(metrics.remotePort, server.ports["http"])
            XCTAssertGreaterThan(metrics.localPort, 0)
            XCTAssertEqual(metrics.httpVersion, "1.1")
            XCTAssertEqual(metrics.bytesReceived, Int64(size))
            XCTAssertEqual(metrics.bytesSent, 0)
            XCTAssertGreaterThan(metrics.firstByte, 0)
            XCTAssertGreaterThanOrEqual(metrics.total, metrics.firstByte)
        }
        XCTAssertFalse(first.metrics.connectionReused)
        XCTAssertGreaterThan(first.metrics.connect, 0)
        XCTAssertTrue(second.metrics.connectionReused)
        XCTAssertEqual(second.metrics.connect, 0, "a reused connection was not made: no connect time")
        XCTAssertEqual(second.metrics.tlsHandshake, 0)
        XCTAssertEqual(first.metrics.localPort, second.metrics.localPort)
    }

    func testAfterAFailedSendTheNextSendGetsAHandleWithAWarmConnection() throws {
        let fresh = HTTPTransport()
        // Two sends at once leave two idle handles, each with a kept-alive connection: each
        // send's progress handler waits (bounded) until both transfers are running.
        let url = server.http + "/bytes/10"
        let bothRunning = DispatchGroup()
        bothRunning.enter()
        bothRunning.enter()
        let started = Protected(0)
        let control = TransferControl(progress: { _ in
            if started.withLock({ $0 += 1; return $0 }) <= 2 { bothRunning.leave() }
            _ = bothRunning.wait(timeout: .now() + 5)
            return true
        })
        let results = Protected<[HTTPTransport.Result]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let result = fresh.send(request: HTTPRequest(endpoint: url), control: control)
            results.withLock { $0.append(result) }
        }
        XCTAssertEqual(results.withLock { $0.filter(\.isSuccess).count }, 2)

        // A send whose connection the server closes: its handle has no live connection left.
        XCTAssertEqual(fresh.send(request: HTTPRequest(endpoint: server.http + "/fault/close-before-response")).isSuccess, false)
        let next = try sendOK(fresh, HTTPRequest(endpoint: server.http + "/bytes/10"))
        XCTAssertTrue(next.metrics.connectionReused, "the next send should get the other handle's warm connection")
    }

    /// Response bodies are gathered in a buffer that grows by doubling when no length is
    /// declared, and is handed over as `Data`: every size, in a row on one handle, arrives whole
    /// and byte for byte, and a body stays intact when the next one arrives or when it is changed.
    func testBodiesOfEverySizeArriveWholeInARow() throws {
        let sizes = [1, 16_383, 16_384, 16_385, 70_001, 3, 0, 100_000, 2]
        var bodies: [Data] = []
        for size in sizes {
            for route in ["/stream-bytes/", "/bytes/"] {  // chunked, then with Content-Length
                let body = try sendOK(transport, HTTPRequest(endpoint: server.http + route + "\(size)")).body ?? Data()
                XCTAssertEqual(body.count, size, route + "\(size)")
                bodies.append(body)
            }
        }
        for (index, body) in bodies.enumerated() {
            let mismatch = body.enumerated().first { $0.element != UInt8($0.offset % 251) }
            XCTAssertNil(mismatch, "body \(index) (\(body.count) bytes) differs at byte \(mismatch?.offset ?? -1)")
        }
        var changed = bodies[9]  // 70,001 bytes
        changed.append(contentsOf: [1, 2, 3])
        changed[0] = 99
        XCTAssertEqual(changed.count, 70_004)
        XCTAssertEqual(bodies[9].count, 70_001)
        XCTAssertEqual(bodies[9].first, 0)
    }
}
