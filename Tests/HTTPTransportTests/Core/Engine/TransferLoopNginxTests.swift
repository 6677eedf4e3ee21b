import Foundation
@testable import HTTPTransport
import XCTest

/// The session's transfer loop against nginx: HTTP/2 multiplexing, connections per host, and
/// thousands of exchanges in flight on a handful of threads. (Blocking calls only: the nginx
/// peer is stopped from a class tear-down.)
final class TransferLoopNginxTests: XCTestCase {
    static let nginx = SharedPeer({ try NginxPeer(certificates: TestServer.shared.certificates) }, stop: { $0.stop() })

    override class func tearDown() {
        nginx.stop()
        super.tearDown()
    }

    private func transport(multiplexing: Bool = true, maxConnectionsPerHost: Int = 0,
                           maxConcurrentTransfers: Int = 1_000, connectTimeout: TimeInterval? = nil) -> HTTPTransport {
        var configuration = Session.Configuration()
        if let connectTimeout { configuration.connectTimeout = connectTimeout }
        configuration.multiplexing = multiplexing
        configuration.maxConnectionsPerHost = maxConnectionsPerHost
        configuration.maxConcurrentTransfers = maxConcurrentTransfers
        let security = Security(trustedRootCertificates: server.certificates.appendingPathComponent("ca.pem"))
        return HTTPTransport(session: Session(security: security, configuration: configuration))
    }

    /// Connections nginx accepted while `body` ran (read over one kept-alive connection).
    private func connections(_ nginx: NginxPeer, during body: () -> Void) throws -> Int {
        let status = transport()
        let read = {
            let response = try self.sendOK(status, HTTPRequest(endpoint: "http://127.0.0.1:\(nginx.port)/status"))
            return try XCTUnwrap(NginxPeer.acceptedConnections(inStatus: response.getString() ?? ""))
        }
        let before = try read()
        body()
        return try read() - before
    }

    func testConcurrentRequestsToAnHTTP2OriginShareOneConnection() throws {
        let nginx = try Self.nginx.get()
        let requests = (0..<100).map { HTTPRequest(endpoint: "https://localhost:\(nginx.tlsPort)/h2/\($0)") }
        var results: [HTTPTransport.Result] = []
        let opened = try connections(nginx) { results = transport().send(requests: requests) }
        XCTAssertEqual(results.filter(\.isSuccess).count, 100, "\(results.compactMap(\.error).prefix(3))")
        XCTAssertEqual(results.compactMap { $0.value?.metrics.httpVersion }.filter { $0 == "2" }.count, 100)
        XCTAssertLessThanOrEqual(opened, 2)
        XCTAssertGreaterThanOrEqual(opened, 1)
    }

    /// 150 async sends at once, each answered after 0.3 s: more streams in flight than one
    /// connection takes (libcurl's 100), which libcurl 7.88 met with a new connection per transfer
    /// (MultiplexGate), whenever the sends reached the loop.
    func testConcurrentAsyncSendsToADelayingHTTP2OriginShareAFewConnections() throws {
        let nginx = try Self.nginx.get()
        let transport = transport()
        XCTAssertTrue(transport.send(requests: [HTTPRequest(endpoint: "https://127.0.0.1:\(nginx.tlsPort)/warm")])[0].isSuccess)
        let versions = Recorder<String>()
        let failures = Recorder<String>()
        let opened = try connections(nginx) {
            let done = DispatchSemaphore(value: 0)
            Task {
                await withTaskGroup(of: Void.self) { group in
                    for index in 0..<150 {
                        group.addTask {
                            do throws(HTTPTransportError) {
                                let request = HTTPRequest(endpoint: "https://127.0.0.1:\(nginx.tlsPort)/delayed/0.3?n=\(index)")
                                versions.add(try await transport.send(request).metrics.httpVersion)
                            } catch {
                                failures.add(error.message)
                            }
                        }
                    }
                }
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        }
        XCTAssertEqual(failures.values, [])
        XCTAssertEqual(versions.values, Array(repeating: "2", count: 150))
        XCTAssertLessThanOrEqual(opened, 3)
    }

    /// A transfer waiting for its turn on a full HTTP/2 connection (MultiplexGate) keeps its own
    /// time-out: 100 slow exchanges fill the origin's connection, and one more, with a 0.5 s
    /// time-out, fails with .timeout within it instead of waiting for a stream to free up.
    func testATransferWaitingForAFullConnectionTimesOutInItsOwnTime() throws {
        let nginx = try Self.nginx.get()
        let transport = transport()
        let origin = "https://127.0.0.1:\(nginx.tlsPort)"
        XCTAssertTrue(transport.send(requests: [HTTPRequest(endpoint: origin + "/warm")])[0].isSuccess)
        let backend = { (path: String) in
            (try? transport.send(requests: [HTTPRequest(endpoint: self.server.http + path)])[0].value?.getJSONDictionary()?["count"] as? Int) ?? 0
        }
        _ = backend("/_admin/reset")
        let done = DispatchSemaphore(value: 0)
        Task {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<MultiplexGate.streamsPerOrigin {
                    group.addTask { _ = await transport.result(for: HTTPRequest(endpoint: origin + "/delayed/4?n=\(index)"), progress: nil) }
                }
            }
            done.signal()
        }
        // The connection is full once the test server behind nginx has every one of them.
        for _ in 0..<500 where backend("/_admin/count") < MultiplexGate.streamsPerOrigin { usleep(20_000) }
        let started = ContinuousClock.now
        let late = transport.send(requests: [HTTPRequest(endpoint: origin + "/delayed/0?late", timeout: 0.5)])[0]
        let waited = ContinuousClock.now - started
        XCTAssertEqual(late.error?.code, .timeout, "\(late.error?.message ?? "it succeeded")")
        XCTAssertLessThan(waited, .milliseconds(2500))
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
    }

    func testWithoutMultiplexingConcurrentHTTP2RequestsOpenConnectionsUpToTheLimitPerHost() throws {
        let nginx = try Self.nginx.get()
        let requests = (0..<60).map { HTTPRequest(endpoint: "https://localhost:\(nginx.tlsPort)/delayed/0.2?n=\($0)") }
        var results: [HTTPTransport.Result] = []
        let opened = try connections(nginx) {
            results = transport(multiplexing: false, maxConnectionsPerHost: 6).send(requests: requests)
        }
        XCTAssertTrue(results.allSatisfy(\.isSuccess), "\(results.compactMap(\.error).prefix(3))")
        XCTAssertGreaterThan(opened, 2)
        XCTAssertLessThanOrEqual(opened, 6)
    }

    func testTenThousandExchangesInFlightNeedAHandfulOfThreads() throws {
        let nginx = try Self.nginx.get()
        // All 10,000 join the loop at once and go through 32 connections, which on a busy 2-core
        // machine took 7-13 s; libcurl 8 counts a transfer's wait for a connection against its
        // connect time-out (10 s by default), libcurl 7.88 does not.
        let transport = transport(maxConnectionsPerHost: 32, maxConcurrentTransfers: 10_000, connectTimeout: 120)
        XCTAssertTrue(transport.send(requests: [HTTPRequest(endpoint: "http://127.0.0.1:\(nginx.port)/warm")])[0].isSuccess)
        let before = ThreadSampler.threadCount()
        let sampler = ThreadSampler()
        let requests = (0..<10_000).map { HTTPRequest(endpoint: "http://127.0.0.1:\(nginx.port)/n/\($0)", timeout: 120) }
        let results = transport.send(requests: requests)
        let peak = sampler.stop()
        XCTAssertEqual(results.filter(\.isSuccess).count, 10_000, "\(results.compactMap(\.error).prefix(3))")
        XCTAssertEqual(results[9_999].value?.getString()?.contains("/n/9999 "), true)
        // The loop's thread and the session's executor threads, not one per exchange.
        XCTAssertLessThanOrEqual(peak - before, Session.executorThreads + 2, "peak \(peak), before \(before)")
    }
}

/// The process's thread count, sampled on a thread of its own until `stop()`.
final class ThreadSampler: @unchecked Sendable {
    private let lock = NSLock()
    private var peak = 0
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    init() {
        peak = Self.threadCount()
        let thread = Thread { [self] in
            // Bounded: at most ten minutes of samples.
            for _ in 0..<300_000 {
                let count = Self.threadCount()
                let keepGoing = lock.withLock { () -> Bool in
                    peak = max(peak, count)
                    return running
                }
                guard keepGoing else { break }
                usleep(2_000)
            }
            done.signal()
        }
        thread.start()
    }

    /// Stops sampling; the highest count seen.
    func stop() -> Int {
        lock.withLock { running = false }
        done.wait()
        return lock.withLock { peak }
    }

    static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }
}
