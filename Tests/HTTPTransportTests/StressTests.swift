import Foundation
@testable import HTTPTransport
import XCTest

/// Many threads hammering one transport: every response must belong to its request, faults must
/// stay with the send that met them, sessions created and dropped meanwhile must not disturb the
/// shared one, and the pool must stay within `maxIdleHandles`. Bounded: 16 threads × 100 sends.
final class StressTests: XCTestCase {
    static let threads = 16
    static let sendsPerThread = 100

    func testSixteenThreadsHammeringOneTransport() throws {
        var configuration = Session.Configuration()
        configuration.maxIdleHandles = 4  // fewer than the threads: the pool's overflow path runs too
        let session = Session(configuration: configuration)
        let transport = HTTPTransport(session: session)
        let engine = try XCTUnwrap(session.engine as? CurlEngine)
        let base = server.http
        let refused = "http://127.0.0.1:\(TestServer.closedPort())/refused"
        let problems = Counter()
        let outcomes = Counter()

        // Samples the idle count while the threads run: never above the configuration's limit.
        let monitorStop = Protected(false)
        let maxIdleSeen = Protected(0)
        let monitor = Thread {
            while !monitorStop.value {
                let idle = engine.idleHandleCount
                if idle > maxIdleSeen.value { maxIdleSeen.value = idle }
                usleep(500)
            }
        }
        monitor.start()

        DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
            for index in 0..<Self.sendsPerThread {
                let token = "s\(thread)-\(index)"
                switch index % 10 {
                case 0, 1, 2, 3:
                    // GET with a query parameter and a header, both echoed back.
                    let request = HTTPRequest(endpoint: base + "/anything/\(token)")
                        .with(parameters: ["token": token], encoding: .url)
                        .with(header: "X-Token", value: token)
                    Self.expectEcho(transport.send(request: request), token: token, method: "GET", problems: problems)
                case 4, 5:
                    // POST with a JSON body.
                    let request = HTTPRequest(httpMethod: .post, endpoint: base + "/anything/\(token)")
                        .with(parameters: ["token": token, "n": index], encoding: .json)
                        .with(header: "X-Token", value: token)
                    Self.expectEcho(transport.send(request: request), token: token, method: "POST", problems: problems,
                                    jsonToken: true)
                case 6:
                    // A data upload (PUT) whose body is the token.
                    let request = DataUploadHTTPRequest(httpMethod: .put, endpoint: base + "/anything/\(token)",
                                                        headers: ["X-Token": token], data: Data(token.utf8))
                    Self.expectEcho(transport.send(request: request), token: token, method: "PUT", problems: problems,
                                    bodyText: token)
                case 7:
                    // A response cut short: its failure must not leak into the next send on that handle.
                    let result = transport.send(request: HTTPRequest(endpoint: base + "/fault/truncated?token=\(token)"))
                    if result.error?.code != .badResponse {
                        problems.add("\(token): truncated gave \(String(describing: result.error?.code))")
                    }
                case 8:
                    // Nothing listens there.
                    let result = transport.send(request: HTTPRequest(endpoint: refused))
                    if result.error?.code != .cannotConnect {
                        problems.add("\(token): refused gave \(String(describing: result.error?.code))")
                    }
                default:
                    // A session created, used (through the shared transport, and through its own
                    // transport) and dropped while the others run.
                    let own = Session()
                    let request = HTTPRequest(endpoint: base + "/anything/\(token)", session: own)
                        .with(parameters: ["token": token], encoding: .url)
                        .with(header: "X-Token", value: token)
                    Self.expectEcho(transport.send(request: request), token: token, method: "GET", problems: problems)
                    let other = HTTPTransport(session: own)
                    Self.expectEcho(other.send(request: request.with(header: "X-Token", value: token)), token: token,
                                    method: "GET", problems: problems)
                    if index % 20 == 9 {
                        // A send cancelled before it starts answers .cancelled and sends nothing.
                        let cancellation = CancellationHandle()
                        cancellation.cancel()
                        let result = transport.send(request: HTTPRequest(endpoint: base + "/delay/1"),
                                                    control: TransferControl(cancellation: cancellation))
                        if result.error?.code != .cancelled {
                            problems.add("\(token): cancelled gave \(String(describing: result.error?.code))")
                        }
                    }
                }
                outcomes.add(token)
            }
        }
        monitorStop.value = true
        while !monitor.isFinished { usleep(1000) }

        XCTAssertEqual(outcomes.values.count, Self.threads * Self.sendsPerThread)
        XCTAssertEqual(problems.values, [])
        XCTAssertLessThanOrEqual(engine.idleHandleCount, configuration.maxIdleHandles)
        XCTAssertLessThanOrEqual(maxIdleSeen.value, configuration.maxIdleHandles)

        // The shared transport still works, and keeps reusing a connection (handles whose last
        // transfer failed were closed, so the first sends may open new connections).
        var reused = false
        for _ in 0..<(configuration.maxIdleHandles + 2) {
            let after = try sendOK(transport, HTTPRequest(endpoint: base + "/json"))
            XCTAssertEqual(after.httpStatus, .ok)
            reused = after.metrics.connectionReused
        }
        XCTAssertTrue(reused, "sequential sends reuse a pooled connection")
        XCTAssertGreaterThan(engine.idleHandleCount, 0, "handles go back to the pool")
        XCTAssertLessThanOrEqual(engine.idleHandleCount, configuration.maxIdleHandles)
    }

    /// Sessions created and dropped on many threads at once, each with a send in flight elsewhere:
    /// no crash, every send answered.
    func testSessionsCreatedAndDroppedConcurrently() {
        let base = server.http
        let problems = Counter()
        DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
            for index in 0..<10 {
                let transport = HTTPTransport(session: Session())
                let token = "d\(thread)-\(index)"
                Self.expectEcho(transport.send(request: HTTPRequest(endpoint: base + "/anything/\(token)")
                    .with(header: "X-Token", value: token)), token: token, method: "GET", problems: problems, checkQuery: false)
            }
        }
        XCTAssertEqual(problems.values, [])
    }

    /// Checks the server's echo: the path, method, `X-Token` header (and query, JSON body or raw
    /// body) all carry this send's token.
    static func expectEcho(_ result: HTTPTransport.Result, token: String, method: String, problems: Counter,
                           jsonToken: Bool = false, bodyText: String? = nil, checkQuery: Bool = true) {
        switch result {
        case .failure(let error):
            problems.add("\(token): \(error)")
        case .success(let response):
            guard let echo = (try? JSONSerialization.jsonObject(with: response.body ?? Data())) as? [String: Any] else {
                return problems.add("\(token): not JSON")
            }
            let headers = echo["headers_dict"] as? [String: String]
            var wrong: [String] = []
            if echo["path"] as? String != "/anything/\(token)" { wrong.append("path \(echo["path"] ?? "nil")") }
            if echo["method"] as? String != method { wrong.append("method \(echo["method"] ?? "nil")") }
            if headers?["x-token"] != token { wrong.append("header \(headers?["x-token"] ?? "nil")") }
            if checkQuery, !jsonToken, bodyText == nil, (echo["args"] as? [String: Any])?["token"] as? String != token {
                wrong.append("query \(echo["args"] ?? "nil")")
            }
            if jsonToken, (echo["json"] as? [String: Any])?["token"] as? String != token {
                wrong.append("json \(echo["json"] ?? "nil")")
            }
            if let bodyText, echo["body_text"] as? String != bodyText { wrong.append("body \(echo["body_text"] ?? "nil")") }
            if response.request.url.path != "/anything/\(token)" { wrong.append("response.request \(response.request.url)") }
            if !wrong.isEmpty { problems.add("\(token): " + wrong.joined(separator: ", ")) }
        }
    }
}
