import Foundation
import HTTPTransport
import HTTPTransportRedis
import XCTest

/// `HostLimits` shared through a real Redis by sessions that each have their own connections,
/// as separate workers: one rate for all of them, and a `Retry-After` one of them received
/// holding the others.
final class SharedHostLimitsTests: XCTestCase {
    private static let redis = SharedPeer({ try RedisPeer() }, stop: { $0.stop() })
    override class func tearDown() { redis.stop() }

    private func store(_ prefix: String) throws -> RedisSharedState {
        try RedisSharedState(url: Self.redis.get().url(), keyPrefix: prefix, timeout: 0.5)
    }

    func testTwoSessionsOnTheirOwnThreadsShareOneRate() throws {
        let key = UUID().uuidString
        let limits = HostLimits(requestsPerSecond: 5, burst: 1)
        let workers = [try fleetTransport(store(key), limits: limits), try fleetTransport(store(key), limits: limits)]
        let url = outageURL(key)
        onThreads(2) { index in
            for _ in 0..<3 { XCTAssertTrue(workers[index].send(request: HTTPRequest(endpoint: url)).isSuccess) }
        }
        let times = try arrivals(key).times
        XCTAssertEqual(times.count, 6)
        // One bucket of 5 a second for both: the sixth request leaves 1 s after the first
        // (each session's own bucket would let both send their three in 0.4 s).
        XCTAssertGreaterThan((times.last ?? 0) - (times.first ?? 0), 0.85, "\(times)")
    }

    func testAsyncSendsOfTwoSessionsShareOneRate() async throws {
        let key = UUID().uuidString
        let limits = HostLimits(requestsPerSecond: 5, burst: 1)
        let first = try fleetTransport(store(key), limits: limits)
        let second = try fleetTransport(store(key), limits: limits)
        let url = outageURL(key)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for transport in [first, second, first, second] {
                group.addTask { _ = try await transport.send(HTTPRequest(endpoint: url)) }
            }
            try await group.waitForAll()
        }
        let times = try arrivals(key).times
        XCTAssertEqual(times.count, 4)
        XCTAssertGreaterThan((times.last ?? 0) - (times.first ?? 0), 0.5, "\(times)")
    }

    func testARetryAfterOneSessionReceivedHoldsTheOther() throws {
        let key = UUID().uuidString
        let first = try fleetTransport(store(key), limits: HostLimits())
        let second = try fleetTransport(store(key), limits: HostLimits())
        let paused = first.send(request: HTTPRequest(endpoint: outageURL(key, "fail=1&status=429&retry_after=1")))
        XCTAssertEqual(paused.error?.httpStatusCode, .tooManyRequests)
        _ = try sendOK(second, HTTPRequest(endpoint: outageURL(key)))
        let log = try arrivals(key)
        XCTAssertEqual(log.statuses, [429, 200])
        XCTAssertGreaterThan(log.times[1] - log.times[0], 0.9, "the other session waited for the Retry-After")
    }

    func testAPauseLongerThanTheTimeOutFailsTheOtherSessionsSendWithNothingSent() throws {
        let key = UUID().uuidString
        let first = try fleetTransport(store(key), limits: HostLimits())
        let second = try fleetTransport(store(key), limits: HostLimits())
        _ = first.send(request: HTTPRequest(endpoint: outageURL(key, "fail=1&status=503&retry_after=30")))
        var request = HTTPRequest(endpoint: outageURL(key))
        request.timeout = 0.3
        let error = try XCTUnwrap(second.send(request: request).error)
        XCTAssertEqual(error.code, .timeout)
        XCTAssertTrue(error.message.contains("Retry-After"), error.message)
        XCTAssertEqual(try arrivals(key).statuses, [503])
    }

    func testAUnixSocketURLSharesTheRateToo() throws {
        let key = UUID().uuidString
        let url = URL(string: "unix://\(try Self.redis.get().unixSocket)")!
        let limits = HostLimits(requestsPerSecond: 5, burst: 1)
        let workers = [
            fleetTransport(try RedisSharedState(url: url, keyPrefix: key, timeout: 0.5), limits: limits),
            fleetTransport(try RedisSharedState(url: url, keyPrefix: key, timeout: 0.5), limits: limits),
        ]
        for worker in workers + workers { _ = try sendOK(worker, HTTPRequest(endpoint: outageURL(key))) }
        let times = try arrivals(key).times
        XCTAssertGreaterThan((times.last ?? 0) - (times.first ?? 0), 0.5, "\(times)")
    }

    func testSixteenThreadsOnTwoStoresTakeExactlyTheBurst() throws {
        let key = UUID().uuidString
        let stores = [try store(key), try store(key)]
        // A burst of 50 and almost no refill: of 160 reservations that may not wait, 50 succeed.
        let limits = HostLimits(requestsPerSecond: 0.001, burst: 50)
        let granted = Protected(0)
        onThreads(16) { index in
            for _ in 0..<10 {
                guard let turn = stores[index % 2].reserveTurn(origin: "http://api.test:80", limits: limits, within: 0) else {
                    return XCTFail("Redis did not answer")
                }
                if turn.wait != nil { granted.withLock { $0 += 1 } }
            }
        }
        XCTAssertEqual(granted.withLock { $0 }, 50)
    }

    func testTheBucketKeyExpires() throws {
        let key = UUID().uuidString
        let store = try store(key)
        let turn = try XCTUnwrap(store.reserveTurn(origin: "http://api.test:80", limits: HostLimits(requestsPerSecond: 10, burst: 2), within: 1))
        XCTAssertEqual(turn.wait, 0)
        let ttl = try redisCommand(["PTTL", "\(key):bucket:http://api.test:80"])
        // Full again after 0.1 s; the key outlives that by a second at most.
        XCTAssertGreaterThan(ttl, 0)
        XCTAssertLessThanOrEqual(ttl, 1_200)
    }

    func testHostileOriginsMakeShortPlainKeysOfTheirOwn() throws {
        let prefix = UUID().uuidString
        let store = try store(prefix)
        let long = String(repeating: "a", count: 100_000)
        let origins = ["http://\(long):80", "http://\(long)b:80", "http://a b\r\nc:80", "http://bücher.例え:80", "http://plain.test:80"]
        for origin in origins {
            let turn = try XCTUnwrap(store.reserveTurn(origin: origin, limits: HostLimits(requestsPerSecond: 1, burst: 1), within: 0))
            XCTAssertEqual(turn.wait, 0, "each origin has a bucket of its own")
        }
        let keys = try runRedisCLI(port: Self.redis.get().port, ["KEYS", "\(prefix):*"])
            .split(separator: "\n").map(String.init).sorted()
        XCTAssertEqual(keys.count, origins.count, keys.joined(separator: "\n").prefix(500).description)
        for key in keys {
            XCTAssertLessThanOrEqual(key.utf8.count, 250, String(key.prefix(100)))
            XCTAssertTrue(key.utf8.allSatisfy { (0x21...0x7e).contains($0) }, key)
        }
        XCTAssertTrue(keys.contains("\(prefix):bucket:http://plain.test:80"), "a plain origin stays readable")
    }

    func testExtremeLimitsStillGiveEveryKeyAnExpiry() throws {
        let key = UUID().uuidString
        let store = try store(key)
        let origin = "http://api.test:80"
        XCTAssertNotNil(store.reserveTurn(origin: origin, limits: HostLimits(requestsPerSecond: 1e-300, burst: 1), within: 1))
        XCTAssertGreaterThan(try redisCommand(["PTTL", "\(key):bucket:\(origin)"]), 0)
        let breaker = CircuitBreaker(failureThreshold: 1, openDuration: 1e20)
        XCTAssertTrue(store.record(origin: origin, breaker: breaker, outcome: .failure(reason: "test"), probe: false))
        XCTAssertGreaterThan(try redisCommand(["PTTL", "\(key):circuit:\(origin)"]), 0)
        guard case .open? = store.admit(origin: origin, breaker: breaker, probeLease: 1e20) else {
            return XCTFail("a circuit open for 1e20 seconds is open")
        }
    }

    /// One command through redis-cli against the test's Redis: its integer reply.
    private func redisCommand(_ arguments: [String]) throws -> Int {
        let output = try runRedisCLI(port: Self.redis.get().port, arguments)
        return try XCTUnwrap(Int(output.trimmingCharacters(in: .whitespacesAndNewlines)), output)
    }
}

/// Runs redis-cli against 127.0.0.1:`port` and returns what it printed.
func runRedisCLI(port: Int, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
    process.arguments = ["-h", "127.0.0.1", "-p", String(port)] + arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
