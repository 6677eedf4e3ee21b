import CoreMetrics
import Foundation
import HTTPTransport
import HTTPTransportRedis
import XCTest

/// What the fleet tests share: a Redis per test class, sessions that each open their own
/// connections to it (one `RedisSharedState` each, as separate worker processes would), and the
/// local server's `/resilience/outage` route, whose per-key log says when each request arrived.
extension XCTestCase {
    struct Arrivals {
        let times: [Double]
        let statuses: [Int]
    }

    func outageURL(_ key: String, _ query: String = "fail=0") -> String {
        server.http + "/resilience/outage?key=\(key)&" + query
    }

    func arrivals(_ key: String) throws -> Arrivals {
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/resilience/log?key=\(key)"))
        let json = try XCTUnwrap(try response.getJSONDictionary())
        return Arrivals(times: json["times"] as? [Double] ?? [], statuses: json["statuses"] as? [Int] ?? [])
    }

    /// A transport whose session keeps its limits in `store` (a fresh prefix per test keeps
    /// tests apart on one Redis).
    func fleetTransport(_ store: (any SharedOriginState)?, limits: HostLimits? = nil, breaker: CircuitBreaker? = nil,
                        retrier: (any HTTPRetrier)? = nil, metrics: (any MetricsFactory)? = nil) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.hostLimits = limits
        configuration.circuitBreaker = breaker
        configuration.sharedState = store
        configuration.metricsFactory = metrics
        return HTTPTransport(session: Session(configuration: configuration), retrier: retrier)
    }

    /// Runs `body` on `count` threads at once, each with its index.
    func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        DispatchQueue.concurrentPerform(iterations: count, execute: body)
    }

    /// Seconds `body` took.
    func seconds(_ body: () throws -> Void) rethrows -> TimeInterval {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return TimeInterval(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
