import Foundation
import HTTPTransport
import XCTest

/// `transport.send(requests:)`: every request in flight together (up to `maxConcurrentTransfers`),
/// results in the order given, each as `send(request:)` would give it.
final class FanOutTests: XCTestCase {
    /// Counts requests between their request interceptor and their response interceptor.
    private final class InFlight: @unchecked Sendable {
        private let lock = NSLock()
        private var now = 0
        private(set) var peak = 0

        func started() { lock.withLock { now += 1; peak = max(peak, now) } }
        func ended() { lock.withLock { now -= 1 } }
        var highest: Int { lock.withLock { peak } }
    }

    /// The queries of the requests in the order their interceptor saw them.
    private final class Started: @unchecked Sendable {
        private let lock = NSLock()
        private var queries: [String] = []

        func append(_ query: String) { lock.withLock { queries.append(query) } }
        var all: [String] { lock.withLock { queries } }
    }

    private func transport(maxConcurrentTransfers: Int = 1_000, maxConnectionsPerHost: Int = 0,
                           counting inFlight: InFlight? = nil, retrier: (any HTTPRetrier)? = nil) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.maxConcurrentTransfers = maxConcurrentTransfers
        configuration.maxConnectionsPerHost = maxConnectionsPerHost
        let requestInterceptors: [any HTTPRequestInterceptor] = inFlight.map { counter in
            [ClosureRequestInterceptor { request in counter.started(); return request }]
        } ?? []
        var responseInterceptors: [any HTTPResponseInterceptor] = [ClarifyErrorInterceptor()]
        if let inFlight { responseInterceptors.append(ClosureResponseInterceptor { response in inFlight.ended(); return response }) }
        return HTTPTransport(session: Session(configuration: configuration), requestInterceptors: requestInterceptors,
                             responseInterceptors: responseInterceptors, retrier: retrier)
    }

    func testResultsComeInTheOrderGiven() throws {
        let requests = (0..<40).map { HTTPRequest(endpoint: server.http + "/anything?n=\($0)") }
        let results = transport().send(requests: requests)
        XCTAssertEqual(results.count, 40)
        for (index, result) in results.enumerated() {
            let response = try XCTUnwrap(result.value, "\(index): \(String(describing: result.error))")
            XCTAssertEqual(try echo(response)["query"] as? String, "n=\(index)")
        }
    }

    func testFailuresStayAtTheirPlaceAmongSuccesses() {
        let requests: [any HTTPRequestEnvelope] = [
            HTTPRequest(endpoint: server.http + "/get"),
            HTTPRequest(endpoint: "not a url"),
            HTTPRequest(endpoint: server.http + "/status/404"),
            DataUploadHTTPRequest(endpoint: server.http + "/post", data: Data("x".utf8)),
        ]
        let results = transport().send(requests: requests)
        XCTAssertEqual(results.map(\.isSuccess), [true, false, false, true])
        XCTAssertEqual(results[1].error?.code, .invalidURL)
        XCTAssertEqual(results[2].error?.httpStatusCode, .notFound)
    }

    func testNoRequestsGiveNoResults() {
        XCTAssertTrue(transport().send(requests: []).isEmpty)
    }

    func testTheRequestsAreInFlightTogether() {
        let inFlight = InFlight()
        let requests = (0..<10).map { _ in HTTPRequest(endpoint: server.http + "/delay/1") }
        let results = transport(counting: inFlight).send(requests: requests)
        XCTAssertTrue(results.allSatisfy(\.isSuccess))
        XCTAssertEqual(inFlight.highest, 10)
    }

    func testMaxConcurrentTransfersBoundsTheRequestsInFlight() {
        let inFlight = InFlight()
        let port = server.ports["http"] ?? 0
        let requests = (0..<12).map { HTTPRequest(endpoint: "http://\($0 % 2 == 0 ? "127.0.0.1" : "localhost"):\(port)/delay/0.2") }
        let results = transport(maxConcurrentTransfers: 3, counting: inFlight).send(requests: requests)
        XCTAssertTrue(results.allSatisfy(\.isSuccess))
        XCTAssertEqual(inFlight.highest, 3)
    }

    func testWithOnePlaceTheRequestsStartInTheOrderGiven() {
        let started = Started()
        let transport = HTTPTransport(session: Session(configuration: {
            var configuration = Session.Configuration()
            configuration.maxConcurrentTransfers = 1
            return configuration
        }()), requestInterceptors: [ClosureRequestInterceptor { request in started.append(request.url.query ?? ""); return request }])
        let results = transport.send(requests: (0..<12).map { HTTPRequest(endpoint: server.http + "/get?n=\($0)") })
        XCTAssertTrue(results.allSatisfy(\.isSuccess))
        XCTAssertEqual(started.all, (0..<12).map { "n=\($0)" })
    }

    /// Called from async code, the calling thread is one of the cooperative pool's (as wide as
    /// the machine has cores) and waits: the exchanges must not need the pool. Every pool thread
    /// here waits in a fan-out at once; each fan-out still finishes.
    func testFanOutsFromEveryThreadOfTheCooperativePoolFinish() {
        let width = ProcessInfo.processInfo.activeProcessorCount
        let transport = transport()
        let arrived = DispatchGroup(), allArrived = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        for _ in 0..<width { arrived.enter() }
        let url = server.http + "/get"
        for _ in 0..<width {
            Task.detached {
                // Hold this pool thread until every one is held (bounded: a wider pool is fine too).
                arrived.leave()
                if arrived.wait(timeout: .now() + 10) == .success { allArrived.signal() }
                let results = transport.send(requests: (0..<4).map { _ in HTTPRequest(endpoint: url) })
                if results.allSatisfy(\.isSuccess) { finished.signal() }
            }
        }
        for index in 0..<width {
            XCTAssertEqual(allArrived.wait(timeout: .now() + 20), .success, "pool thread \(index) never arrived")
            XCTAssertEqual(finished.wait(timeout: .now() + 30), .success, "fan-out \(index) did not finish")
        }
    }

    func testMaxConnectionsPerHostBoundsOneOrigin() throws {
        let requests = (0..<8).map { _ in HTTPRequest(endpoint: server.http + "/delay/0.2") }
        let results = transport(maxConnectionsPerHost: 2).send(requests: requests)
        XCTAssertTrue(results.allSatisfy(\.isSuccess))
        // The server names the connection each request came on.
        let connections = try Set(results.map { try XCTUnwrap(echo(XCTUnwrap($0.value))["connection_id"] as? Int) })
        XCTAssertEqual(connections.count, 2)
    }

    func testEachRequestIsRetriedAsASendWouldBe() throws {
        let key = UUID().uuidString
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: 0)
        let results = transport(retrier: policy).send(requests: [
            HTTPRequest(endpoint: server.http + "/flaky?key=\(key)&fail=2"),
            HTTPRequest(endpoint: server.http + "/get"),
        ])
        XCTAssertEqual(try XCTUnwrap(results[0].value).getJSONDictionary()?["attempts"] as? Int, 3)
        XCTAssertTrue(results[1].isSuccess)
    }
}
