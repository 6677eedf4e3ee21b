import Foundation
import HTTPTransport
import HTTPTransportRedis
import XCTest

/// `HTTPCache(storage: RedisCacheStorage(…))` shared by two transports with their own sessions
/// and connections, as two processes would: one fetches, the other is served from Redis; the
/// cache's rules hold (no `no-store` entry, credentials kept apart, entries expire).
final class RedisCacheStorageTests: XCTestCase {
    private static let redis = SharedPeer({ try RedisPeer() }, stop: { $0.stop() })
    override class func tearDown() { redis.stop() }

    private func cachedTransport(_ prefix: String) throws -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.cache = HTTPCache(storage: try RedisCacheStorage(url: Self.redis.get().url(), keyPrefix: prefix))
        return HTTPTransport(session: Session(configuration: configuration))
    }

    private func count(_ key: String) throws -> Int {
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/cache-count?key=\(key)"))
        return try XCTUnwrap(try response.getJSONDictionary()?["count"] as? Int)
    }

    private func keys(_ prefix: String) throws -> [String] {
        try runRedisCLI(port: Self.redis.get().port, ["--scan", "--pattern", "\(prefix):*"])
            .split(separator: "\n").map(String.init).filter { !$0.hasSuffix(":salt") }
    }

    func testAResponseOneTransportFetchedIsServedToTheOtherFromRedis() throws {
        let (prefix, key) = (UUID().uuidString, UUID().uuidString)
        let url = server.http + "/cache/\(key)?cc=max-age=60"
        let first = try sendOK(try cachedTransport(prefix), HTTPRequest(endpoint: url))
        XCTAssertEqual(first.metrics.cacheStatus, .miss)
        let second = try sendOK(try cachedTransport(prefix), HTTPRequest(endpoint: url))
        XCTAssertEqual(second.metrics.cacheStatus, .hit)
        XCTAssertEqual(second.body, first.body)
        XCTAssertEqual(try count(key), 1, "the server was asked once")
    }

    func testNoStoreIsNeverWritten() throws {
        let (prefix, key) = (UUID().uuidString, UUID().uuidString)
        let url = server.http + "/cache/\(key)?cc=no-store"
        _ = try sendOK(try cachedTransport(prefix), HTTPRequest(endpoint: url))
        _ = try sendOK(try cachedTransport(prefix), HTTPRequest(endpoint: url))
        XCTAssertEqual(try count(key), 2)
        XCTAssertEqual(try keys(prefix), [], "nothing of a no-store response is in Redis")
    }

    func testAnotherCredentialIsNotServedTheEntry() throws {
        let (prefix, key) = (UUID().uuidString, UUID().uuidString)
        let url = server.http + "/cache/\(key)?cc=private,max-age=60"
        var alice = HTTPRequest(endpoint: url)
        alice.headers["Authorization"] = "Bearer alice"
        var bob = HTTPRequest(endpoint: url)
        bob.headers["Authorization"] = "Bearer bob"
        _ = try sendOK(try cachedTransport(prefix), alice)
        XCTAssertEqual(try sendOK(try cachedTransport(prefix), bob).metrics.cacheStatus, .miss)
        XCTAssertEqual(try sendOK(try cachedTransport(prefix), alice).metrics.cacheStatus, .hit)
        XCTAssertEqual(try count(key), 2)
    }

    func testEntriesExpireWithTheirFreshnessPlusAMargin() throws {
        let (prefix, key) = (UUID().uuidString, UUID().uuidString)
        _ = try sendOK(try cachedTransport(prefix), HTTPRequest(endpoint: server.http + "/cache/\(key)?cc=max-age=100"))
        let stored = try keys(prefix)
        XCTAssertEqual(stored.count, 2, "the URL's variant set and its one entry: \(stored)")
        for name in stored {
            let ttl = try XCTUnwrap(Int(try runRedisCLI(port: Self.redis.get().port, ["PTTL", name])
                .trimmingCharacters(in: .whitespacesAndNewlines)))
            // 100 s of freshness plus the hour kept for revalidation, never forever (-1).
            XCTAssertGreaterThan(ttl, 3_600_000, name)
            XCTAssertLessThanOrEqual(ttl, 3_700_000, name)
        }
    }

    func testNoURLIsWrittenInClear() throws {
        let (prefix, key) = (UUID().uuidString, "secret-token-\(UUID().uuidString)")
        _ = try sendOK(try cachedTransport(prefix), HTTPRequest(endpoint: server.http + "/cache/\(key)?cc=max-age=60"))
        XCTAssertFalse(try keys(prefix).contains { $0.contains("secret-token") })
    }

    func testWithRedisDownTheCacheStoresNothingAndSendsGoOn() throws {
        let redis = try RedisPeer()
        let url = redis.url()
        redis.stop()
        var configuration = Session.Configuration()
        configuration.cache = HTTPCache(storage: try RedisCacheStorage(url: url))
        let transport = HTTPTransport(session: Session(configuration: configuration))
        let key = UUID().uuidString
        for _ in 0..<2 {
            XCTAssertEqual(try sendOK(transport, HTTPRequest(endpoint: server.http + "/cache/\(key)?cc=max-age=60")).metrics.cacheStatus, .miss)
        }
        XCTAssertEqual(try count(key), 2)
    }

    func testABadURLFailsWithInvalidURL() {
        XCTAssertThrowsError(try RedisCacheStorage(url: URL(string: "memcached://127.0.0.1:11211")!)) { error in
            XCTAssertEqual((error as? HTTPTransportError)?.code, .invalidURL)
        }
    }
}
