import Foundation
import HTTPTransport
@testable import HTTPTransportRedis
import XCTest

/// A Redis named by host name: the look-up counts against the store's time-out (getaddrinfo
/// has none, and a name server that does not answer holds it for seconds).
final class RedisResolverTests: XCTestCase {
    func testAHostNameThatDoesNotResolveInTimeCostsADecisionTheTimeOutOnly() throws {
        let release = DispatchSemaphore(value: 0)
        let lookUps = Protected(0)
        let resolver = RedisResolver { _ in
            lookUps.withLock { $0 += 1 }
            release.wait()  // a name server that does not answer until the test ends
            return nil
        }
        defer { release.signal() }
        let endpoint = try RedisEndpoint(url: XCTUnwrap(URL(string: "redis://redis.fleet.test:6379")))
        let connections = RedisConnections(endpoint: endpoint, timeout: 0.2, retryInterval: 0, resolver: resolver)
        var replies: [RedisReply?] = []
        let took = seconds { for _ in 0..<2 { replies.append(connections.run([Array("PING".utf8)])) } }
        XCTAssertEqual(replies, [nil, nil])
        XCTAssertLessThan(took, 0.8, "two decisions waited on the look-up longer than their time-outs")
        XCTAssertEqual(lookUps.withLock { $0 }, 1, "the second decision joined the look-up under way")
        XCTAssertEqual(connections.failure, "timed out resolving redis.fleet.test")
    }

    func testLocalhostResolvesToTheAddressRedisListensOn() throws {
        let redis = try RedisPeer()
        defer { redis.stop() }
        let url = try XCTUnwrap(URL(string: "redis://localhost:\(redis.port)"))
        let store = try RedisSharedState(url: url, keyPrefix: UUID().uuidString, timeout: 0.5)
        XCTAssertNotNil(store.reserveTurn(origin: "http://api.test:80", limits: HostLimits(requestsPerSecond: 5), within: 1))
    }
}
