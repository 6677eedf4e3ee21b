import Foundation
import HTTPTransport
import HTTPTransportRedis
import MetricsTestKit
import XCTest

/// Redis is never a single point of failure: with it down, frozen, restarted or refusing the
/// credentials, sends go on with the session's own limits, wait at most the store's time-out
/// for it, and the outage is reported once; sharing resumes when it answers again.
final class RedisOutageTests: XCTestCase {
    private let limits = HostLimits(requestsPerSecond: 1_000, burst: 100)

    func testWithRedisKilledMidRunSendsGoOnAndTheOutageIsReportedOnce() throws {
        let redis = try RedisPeer()
        defer { redis.stop() }
        let metrics = TestMetrics()
        let store = try RedisSharedState(url: redis.url(), keyPrefix: UUID().uuidString, timeout: 0.05)
        let transport = fleetTransport(store, limits: limits, metrics: metrics)
        let key = UUID().uuidString
        _ = try sendOK(transport, HTTPRequest(endpoint: outageURL(key)))
        XCTAssertNotNil(store.reserveTurn(origin: "http://api.test:80", limits: limits, within: 1), "Redis answers")
        redis.stop()
        for _ in 0..<20 {
            let took = try seconds { _ = try sendOK(transport, HTTPRequest(endpoint: outageURL(key))) }
            XCTAssertLessThan(took, 0.5, "a send never waits on a dead store much longer than its time-out")
        }
        XCTAssertEqual(try arrivals(key).times.count, 21)
        XCTAssertEqual(try metrics.expectCounter("http.client.shared_state.outages").values, [1], "one outage, one report")
        XCTAssertTrue(store.description.contains("connect"), "the outage's cause is shown: \(store.description)")
    }

    func testSessionsSharingOneStoreReportItsOutageOnce() throws {
        let redis = try RedisPeer()
        defer { redis.stop() }
        let metrics = TestMetrics()
        let store = try RedisSharedState(url: redis.url(), keyPrefix: UUID().uuidString, timeout: 0.05)
        let transports = (0..<3).map { _ in fleetTransport(store, limits: limits, metrics: metrics) }
        let key = UUID().uuidString
        for transport in transports { _ = try sendOK(transport, HTTPRequest(endpoint: outageURL(key))) }
        redis.stop()
        for transport in transports { _ = try sendOK(transport, HTTPRequest(endpoint: outageURL(key))) }
        XCTAssertEqual(try metrics.expectCounter("http.client.shared_state.outages").values, [1], "one outage of one store")
    }

    func testAfterARestartSharingResumes() throws {
        let redis = try RedisPeer()
        let store = try RedisSharedState(url: redis.url(), keyPrefix: UUID().uuidString, timeout: 0.05)
        XCTAssertNotNil(store.reserveTurn(origin: "http://api.test:80", limits: limits, within: 1))
        let port = redis.port
        redis.stop()
        XCTAssertNil(store.reserveTurn(origin: "http://api.test:80", limits: limits, within: 1))
        let restarted = try RedisPeer(port: port)
        defer { restarted.stop() }
        // The store tries again at most once a second: within three, it answers.
        let deadline = Date().addingTimeInterval(3)
        var answered = false
        while !answered, Date() < deadline {
            answered = store.reserveTurn(origin: "http://api.test:80", limits: limits, within: 1) != nil
            if !answered { usleep(50_000) }
        }
        XCTAssertTrue(answered, "the restarted Redis (which lost its scripts) answers again")
    }

    func testAFrozenRedisCostsASendAtMostTheTimeOut() throws {
        let redis = try RedisPeer()
        defer { redis.stop() }
        let store = try RedisSharedState(url: redis.url(), keyPrefix: UUID().uuidString, timeout: 0.05)
        let transport = fleetTransport(store, limits: limits)
        let key = UUID().uuidString
        _ = try sendOK(transport, HTTPRequest(endpoint: outageURL(key)))
        redis.peer.send(SIGSTOP)
        defer { redis.peer.send(SIGCONT) }
        // The first send waits for one time-out; the others find the store marked out. (Without
        // the socket time-outs, a send would wait on the frozen server for ever.)
        for _ in 0..<5 {
            let took = try seconds { _ = try sendOK(transport, HTTPRequest(endpoint: outageURL(key))) }
            XCTAssertLessThan(took, 0.5, "a send with a frozen Redis")
        }
        XCTAssertEqual(try arrivals(key).times.count, 6)
    }

    func testAWrongPasswordLeavesSendsToTheSessionsOwnLimits() throws {
        let redis = try RedisPeer(password: "right")
        defer { redis.stop() }
        let metrics = TestMetrics()
        let store = try RedisSharedState(url: redis.url(credentials: ":wrong"), keyPrefix: UUID().uuidString)
        let transport = fleetTransport(store, limits: HostLimits(requestsPerSecond: 5, burst: 1), metrics: metrics)
        let key = UUID().uuidString
        for _ in 0..<3 { _ = try sendOK(transport, HTTPRequest(endpoint: outageURL(key))) }
        let times = try arrivals(key).times
        XCTAssertGreaterThan((times.last ?? 0) - (times.first ?? 0), 0.3, "the session's own rate still holds: \(times)")
        XCTAssertEqual(try metrics.expectCounter("http.client.shared_state.outages").values, [1])
        XCTAssertTrue(store.description.contains("refused the credentials"), store.description)
        XCTAssertFalse(store.description.contains("wrong"), "the password is never shown")
    }

    func testAMissingPasswordIsAnOutageToo() throws {
        let redis = try RedisPeer(password: "right")
        defer { redis.stop() }
        let store = try RedisSharedState(url: redis.url(), keyPrefix: UUID().uuidString)
        XCTAssertNil(store.reserveTurn(origin: "http://api.test:80", limits: limits, within: 1))
        XCTAssertTrue(store.description.contains("NOAUTH"), store.description)
        let took = seconds { XCTAssertNil(store.reserveTurn(origin: "http://api.test:80", limits: limits, within: 1)) }
        XCTAssertLessThan(took, 0.001, "marked out: the next decision asks nothing of Redis")
    }

    func testTheRightPasswordAndADatabaseNumberWork() throws {
        let redis = try RedisPeer(password: "s3cret")
        defer { redis.stop() }
        let url = URL(string: "redis://default:s3cret@127.0.0.1:\(redis.port)/3")!
        let store = try RedisSharedState(url: url, keyPrefix: UUID().uuidString, timeout: 2)
        XCTAssertNotNil(store.reserveTurn(origin: "http://api.test:80", limits: limits, within: 1))
        var configuration = Session.Configuration()
        configuration.sharedState = store
        configuration.cache = HTTPCache(storage: try RedisCacheStorage(url: url))
        var shown = String(reflecting: configuration) + String(describing: store)
        dump(configuration, to: &shown)
        dump(store, to: &shown)
        XCTAssertFalse(shown.contains("s3cret"), "the password is never shown, not even by dump()")
    }

    func testAHugeTimeOutIsATimeOutNotACrash() throws {
        let redis = try RedisPeer()
        defer { redis.stop() }
        for timeout in [1e13, .greatestFiniteMagnitude] {
            let store = try RedisSharedState(url: redis.url(), keyPrefix: UUID().uuidString, timeout: timeout)
            XCTAssertNotNil(store.reserveTurn(origin: "http://api.test:80", limits: limits, within: 1))
        }
    }

    func testLoggingInSelectingAndLoadingAScriptTakeTheTimeOutTogether() throws {
        // Each command of a fresh connection (AUTH, SELECT, SCRIPT LOAD, EVALSHA) is answered
        // within the time-out, but all four take twice as long.
        let slow = try SlowRedisPeer(delay: 0.2)
        defer { slow.stop() }
        let store = try RedisSharedState(url: slow.url, keyPrefix: UUID().uuidString, timeout: 0.4)
        var turn: SharedTurn?
        let took = seconds { turn = store.reserveTurn(origin: "http://127.0.0.1:1", limits: limits, within: 1) }
        XCTAssertNil(turn, "the exchange ran past the time-out")
        XCTAssertLessThan(took, 0.65, "a decision waited on the store longer than its time-out")
    }

    func testBadURLsFailWithInvalidURL() {
        let bad = ["http://127.0.0.1:6379", "redis://", "redis://host:6379/x", "redis://host:6379/1/2",
                   "unix://host/path", "unix:///", "redis://host:99999", "redis://host:6379/-1", "redis://host:6379/+1",
                   "redis://host:6379/4294967296", "redis://host:6379/99999999999999999999999", "redis://host:6379/0x1",
                   "unix:///" + String(repeating: "d/", count: 60) + "redis.sock"]
        for text in bad {
            guard let url = URL(string: text) else { continue }
            XCTAssertThrowsError(try RedisSharedState(url: url)) { error in
                XCTAssertEqual((error as? HTTPTransportError)?.code, .invalidURL, text)
            }
        }
        let secrets = ["http://user:hunter2@127.0.0.1:6379", "redis://user:hun@ter2@127.0.0.1:6379/x",
                       "redis://user:hun/ter2@127.0.0.1/x", "redis://:hun:ter2@127.0.0.1:6379/x"]
        for text in secrets {
            guard let secret = URL(string: text) else { continue }
            XCTAssertThrowsError(try RedisSharedState(url: secret)) { error in
                let shown = "\(error) \((error as? HTTPTransportError)?.url ?? "")"
                XCTAssertFalse(shown.contains("ter2") || shown.contains("hunter"), shown)
            }
        }
    }
}
