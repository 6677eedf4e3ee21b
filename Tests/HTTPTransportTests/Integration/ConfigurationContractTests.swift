import Foundation
import HTTPTransport
import InMemoryTracing
import MetricsTestKit
import XCTest

/// The production configuration as users write it (the names are a contract): every line
/// compiles as written, keeps its value, and the session made from it sends.
final class ConfigurationContractTests: XCTestCase {
    func testEveryProductionOptionIsSetAsWrittenAndKept() throws {
        let cacheDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("contract-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let myTracer = InMemoryTracer()
        let myFactory = TestMetrics()

        var configuration = Session.Configuration()
        configuration.proxy = Proxy("http://proxy.internal:3128", username: "u", password: "p", noProxy: ["internal.example"])
        XCTAssertEqual(configuration.proxy, Proxy("http://proxy.internal:3128", username: "u", password: "p", noProxy: ["internal.example"]))
        configuration.proxy = .direct
        configuration.httpVersion = .http2PriorKnowledge
        configuration.stallTimeout = 10
        configuration.unixSocketPath = "/var/run/docker.sock"
        configuration.resolveOverrides = ["api.example.com:443": "10.0.0.7"]
        configuration.ipVersion = .v4
        configuration.addressPolicy = .publicOnly
        configuration.addressPolicy = .custom { address in address.hasPrefix("10.") }
        configuration.allowsInsecureRedirects = false
        configuration.credentialHeaders = ["Authorization", "Proxy-Authorization", "X-Api-Key"]
        configuration.cache = HTTPCache(directory: cacheDirectory, maxBytes: 50 << 20)
        configuration.tracer = myTracer
        configuration.metricsFactory = myFactory
        _ = HTTPTransport(session: Session(configuration: configuration))

        XCTAssertEqual(configuration.proxy, .direct)
        XCTAssertEqual(configuration.stallTimeout, 10)
        XCTAssertEqual(configuration.unixSocketPath, "/var/run/docker.sock")
        XCTAssertEqual(configuration.resolveOverrides, ["api.example.com:443": "10.0.0.7"])
        XCTAssertFalse(configuration.allowsInsecureRedirects)
        XCTAssertEqual(configuration.credentialHeaders, ["Authorization", "Proxy-Authorization", "X-Api-Key"])
        XCTAssertNotNil(configuration.cache)
        XCTAssertNotNil(configuration.tracer)
        XCTAssertNotNil(configuration.metricsFactory)
    }

    func testASessionWithTheContractsCacheTracerAndMetricsSendsAndRecords() throws {
        let cacheDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("contract-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let tracer = InMemoryTracer()
        var configuration = Session.Configuration()
        configuration.proxy = .direct
        configuration.httpVersion = .http1_1
        configuration.stallTimeout = 10
        configuration.ipVersion = .v4
        configuration.addressPolicy = .custom { address in address == "127.0.0.1" }
        configuration.cache = HTTPCache(directory: cacheDirectory, maxBytes: 50 << 20)
        configuration.tracer = tracer
        configuration.metricsFactory = TestMetrics()
        let transport = HTTPTransport(session: Session(configuration: configuration))

        let response = try transport.send(request: HTTPRequest(endpoint: server.http + "/anything/contract")).get()
        XCTAssertEqual(response.httpStatus, .ok)
        XCTAssertEqual(response.metrics.cacheStatus, .miss)
        XCTAssertEqual(tracer.finishedSpans.map(\.operationName), ["GET"])
    }
}
