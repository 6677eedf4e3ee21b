import Foundation
import HTTPTransport
import HTTPTransportRedis
import XCTest

/// Three processes, one rate: this test process and two copies of the test binary running this
/// same test in their worker role (told so by environment variables) each send through their
/// own session with `HostLimits(requestsPerSecond: 10)` and a `RedisSharedState` on one Redis;
/// the local server's log of arrivals shows about 10 a second for all of them together.
final class FleetProcessTests: XCTestCase {
    private static let roleVariable = "HTTPTRANSPORT_FLEET_TEST_WORKER"
    private static let requestsEach = 8
    private static let limits = HostLimits(requestsPerSecond: 10, burst: 1)

    func testThreeProcessesSendAtTheirCommonRate() throws {
        if let role = ProcessInfo.processInfo.environment[Self.roleVariable] {
            return try runWorker(role)
        }
        let redis = try RedisPeer()
        defer { redis.stop() }
        let key = UUID().uuidString
        let role = "\(redis.url().absoluteString) \(key) \(outageURL(key))"
        let workers = try (0..<2).map { _ in try Self.spawnWorker(role) }
        try runWorker(role)
        for (child, output) in workers {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            XCTAssertEqual(child.terminationStatus, 0, "a worker failed:\n\(text.suffix(3000))")
        }
        let times = try arrivals(key).times.sorted()
        XCTAssertEqual(times.count, 3 * Self.requestsEach)
        // 24 requests from a full bucket of one: 23 intervals of 0.1 s at the server (each
        // process alone would send its 8 in 0.7 s, all three together as fast).
        let span = (times.last ?? 0) - (times.first ?? 0)
        let rate = Double(times.count - 1) / span
        // (A worker that starts late only lowers the rate: the bound that matters is the upper one.)
        XCTAssertLessThanOrEqual(rate, 11.5, "combined rate \(rate)/s over \(span) s")
    }

    /// Sends this process's share: `role` is the Redis URL, the key prefix and the target URL.
    private func runWorker(_ role: String) throws {
        let parts = role.split(separator: " ").map(String.init)
        guard parts.count == 3, let redisURL = URL(string: parts[0]) else { return XCTFail("bad worker role \(role)") }
        let store = try RedisSharedState(url: redisURL, keyPrefix: parts[1], timeout: 0.5)
        let transport = fleetTransport(store, limits: Self.limits)
        for _ in 0..<Self.requestsEach {
            XCTAssertTrue(transport.send(request: HTTPRequest(endpoint: parts[2])).isSuccess)
        }
    }

    private static func spawnWorker(_ role: String) throws -> (Process, Pipe) {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        child.arguments = ["HTTPTransportTests.FleetProcessTests/testThreeProcessesSendAtTheirCommonRate"]
        child.environment = ProcessInfo.processInfo.environment.merging([roleVariable: role]) { $1 }
        let output = Pipe()
        child.standardOutput = output
        child.standardError = output
        try child.run()
        return (child, output)
    }
}
