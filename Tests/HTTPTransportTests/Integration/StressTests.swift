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
        let sends = MixedSends(transport: transport, base: server.http,
                               refused: "http://127.0.0.1:\(TestServer.closedPort())/refused")
        let outcomes = Recorder<String>()

        let monitor = IdleHandleMonitor(engine: engine)
        DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
            for index in 0..<Self.sendsPerThread {
                let token = "s\(thread)-\(index)"
                sends.send(index: index, token: token)
                outcomes.add(token)
            }
        }
        let maxIdleSeen = monitor.stop()

        XCTAssertEqual(outcomes.values.count, Self.threads * Self.sendsPerThread)
        XCTAssertEqual(sends.problems.values, [])
        XCTAssertLessThanOrEqual(engine.idleHandleCount, configuration.maxIdleHandles)
        XCTAssertLessThanOrEqual(maxIdleSeen, configuration.maxIdleHandles)
        try assertStillReusesConnections(transport, engine: engine, maxIdleHandles: configuration.maxIdleHandles)
    }

    /// The shared transport still works after the hammering, and keeps reusing a connection
    /// (handles whose last transfer failed were closed, so the first sends may open new ones).
    private func assertStillReusesConnections(_ transport: HTTPTransport, engine: CurlEngine,
                                              maxIdleHandles: Int) throws {
        var reused = false
        for _ in 0..<(maxIdleHandles + 2) {
            let after = try sendOK(transport, HTTPRequest(endpoint: server.http + "/json"))
            XCTAssertEqual(after.httpStatus, .ok)
            reused = after.metrics.connectionReused
        }
        XCTAssertTrue(reused, "sequential sends reuse a pooled connection")
        XCTAssertGreaterThan(engine.idleHandleCount, 0, "handles go back to the pool")
        XCTAssertLessThanOrEqual(engine.idleHandleCount, maxIdleHandles)
    }

    /// Sessions created and dropped on many threads at once, each with a send in flight elsewhere:
    /// no crash, every send answered.
    func testSessionsCreatedAndDroppedConcurrently() {
        let base = server.http
        let problems = Recorder<String>()
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
    static func expectEcho(_ result: HTTPTransport.Result, token: String, method: String, problems: Recorder<String>,
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

/// Samples the engine's idle handle count on its own thread until stopped.
private final class IdleHandleMonitor {
    private let stopped = Protected(false)
    private let maxIdleSeen = Protected(0)
    private let thread: Thread

    init(engine: CurlEngine) {
        let (stopped, maxIdleSeen) = (stopped, maxIdleSeen)
        thread = Thread {
            while !stopped.value {
                let idle = engine.idleHandleCount
                if idle > maxIdleSeen.value { maxIdleSeen.value = idle }
                usleep(500)
            }
        }
        thread.start()
    }

    /// Stops sampling, waits for the sampling thread to end and returns the most seen idle.
    func stop() -> Int {
        stopped.value = true
        while !thread.isFinished { usleep(1000) }
        return maxIdleSeen.value
    }
}

/// The ten kinds of send the stress test mixes, chosen by `index % 10`; each checks its own
/// outcome and records anything wrong in `problems`.
private struct MixedSends: Sendable {
    let transport: HTTPTransport
    let base: String
    let refused: String
    let problems = Recorder<String>()

    func send(index: Int, token: String) {
        switch index % 10 {
        case 0, 1, 2, 3: getWithQueryAndHeader(token)
        case 4, 5: postJSON(token, index: index)
        case 6: putData(token)
        case 7: expectFailure(token, HTTPRequest(endpoint: base + "/fault/truncated?token=\(token)"), .badResponse,
                              "truncated")
        case 8: expectFailure(token, HTTPRequest(endpoint: refused), .cannotConnect, "refused")
        default: throughOwnSession(token, index: index)
        }
    }

    /// GET with a query parameter and a header, both echoed back.
    private func getWithQueryAndHeader(_ token: String) {
        let request = HTTPRequest(endpoint: base + "/anything/\(token)")
            .with(parameters: ["token": token], encoding: .url)
            .with(header: "X-Token", value: token)
        StressTests.expectEcho(transport.send(request: request), token: token, method: "GET", problems: problems)
    }

    /// POST with a JSON body.
    private func postJSON(_ token: String, index: Int) {
        let request = HTTPRequest(httpMethod: .post, endpoint: base + "/anything/\(token)")
            .with(parameters: ["token": token, "n": index], encoding: .json)
            .with(header: "X-Token", value: token)
        StressTests.expectEcho(transport.send(request: request), token: token, method: "POST", problems: problems,
                               jsonToken: true)
    }

    /// A data upload (PUT) whose body is the token.
    private func putData(_ token: String) {
        let request = DataUploadHTTPRequest(httpMethod: .put, endpoint: base + "/anything/\(token)",
                                            headers: ["X-Token": token], data: Data(token.utf8))
        StressTests.expectEcho(transport.send(request: request), token: token, method: "PUT", problems: problems,
                               bodyText: token)
    }

    /// A send that must fail with `code` (a response cut short, nothing listening): its failure
    /// must not leak into the next send on that handle.
    private func expectFailure(_ token: String, _ request: HTTPRequest, _ code: HTTPTransportError.Code,
                               _ what: String) {
        let result = transport.send(request: request)
        if result.error?.code != code {
            problems.add("\(token): \(what) gave \(String(describing: result.error?.code))")
        }
    }

    /// A session created, used (through the shared transport, and through its own transport) and
    /// dropped while the others run; every other time also a send cancelled before it starts.
    private func throughOwnSession(_ token: String, index: Int) {
        let own = Session()
        let request = HTTPRequest(endpoint: base + "/anything/\(token)", session: own)
            .with(parameters: ["token": token], encoding: .url)
            .with(header: "X-Token", value: token)
        StressTests.expectEcho(transport.send(request: request), token: token, method: "GET", problems: problems)
        let other = HTTPTransport(session: own)
        StressTests.expectEcho(other.send(request: request.with(header: "X-Token", value: token)), token: token,
                               method: "GET", problems: problems)
        if index % 20 == 9 { cancelledBeforeStart(token) }
    }

    /// A send cancelled before it starts answers .cancelled and sends nothing.
    private func cancelledBeforeStart(_ token: String) {
        let cancellation = CancellationHandle()
        cancellation.cancel()
        let result = transport.send(request: HTTPRequest(endpoint: base + "/delay/1"),
                                    control: TransferControl(cancellation: cancellation))
        if result.error?.code != .cancelled {
            problems.add("\(token): cancelled gave \(String(describing: result.error?.code))")
        }
    }
}
