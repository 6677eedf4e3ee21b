import Foundation
import HTTPTransport
import XCTest

/// `Session.Configuration.resolveOverrides` (like `curl --resolve`) and `ipVersion`, against the
/// test server (IPv4 only) and nginx (listening on 127.0.0.2 and [::1] too).
final class ResolveOverrideTests: XCTestCase {
    static let nginx = SharedPeer({ try NginxPeer(certificates: TestServer.shared.certificates) }, stop: { $0.stop() })

    override class func tearDown() {
        nginx.stop()
        super.tearDown()
    }

    private func transport(_ overrides: [String: String], ipVersion: Session.Configuration.IPVersion = .any) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.resolveOverrides = overrides
        configuration.ipVersion = ipVersion
        return HTTPTransport(session: Session(configuration: configuration))
    }

    private var port: Int { server.ports["http"] ?? 0 }

    // MARK: DNS overrides

    func testInventedHostReachesTheLocalServerWithItsOwnHostHeader() throws {
        let response = try sendOK(transport(["api.invalid.test:\(port)": "127.0.0.1"]),
                                  HTTPRequest(endpoint: "http://api.invalid.test:\(port)/anything"))
        let headers = try XCTUnwrap(try echo(response)["headers_dict"] as? [String: String])
        XCTAssertEqual(headers["host"], "api.invalid.test:\(port)")
        XCTAssertEqual(response.metrics.remoteAddress, "127.0.0.1")
    }

    func testOverrideAppliesToItsPortOnly() {
        let other = TestServer.closedPort()
        let result = transport(["api.invalid.test:\(other)": "127.0.0.1"])
            .send(request: HTTPRequest(endpoint: "http://api.invalid.test:\(port)/anything"))
        XCTAssertEqual(result.error?.code, .nameResolution, "\(String(describing: result.error))")
    }

    func testIPv6OverrideReachesAnIPv6Listener() throws {
        let nginx = try Self.nginx.get()
        let response = try sendOK(transport(["v6.invalid.test:\(nginx.port)": "::1"]),
                                  HTTPRequest(endpoint: "http://v6.invalid.test:\(nginx.port)/six"))
        XCTAssertEqual(response.getString(), "HTTP/1.1 v6.invalid.test:\(nginx.port) /six ::1\n")
        XCTAssertEqual(response.metrics.remoteAddress, "::1")
    }

    func testMalformedOverridesFailBeforeSending() {
        let cases: [[String: String]] = [
            ["api.invalid.test": "127.0.0.1"],               // no port
            ["api.invalid.test:0": "127.0.0.1"],             // port out of range
            ["api.invalid.test:http": "127.0.0.1"],          // port not a number
            [":80": "127.0.0.1"],                            // no host
            ["api.invalid.test:80": "localhost"],            // not an address
            ["api.invalid.test:80": "127.1"],                // libcurl would skip this spelling silently
            ["api.invalid.test:80": "127.0.0.1,"],           // an empty address
            ["-api.invalid.test:80": "127.0.0.1"],           // libcurl's "remove" prefix
            ["api invalid:80": "127.0.0.1"],
        ]
        for overrides in cases {
            let result = transport(overrides).send(request: HTTPRequest(endpoint: server.http + "/get"))
            XCTAssertEqual(result.error?.code, .invalidURL, "\(overrides)")
            XCTAssertTrue(result.error?.message.contains("DNS override") == true, "\(overrides): \(String(describing: result.error))")
            XCTAssertNil(result.error?.curlCode, "\(overrides)")
        }
    }

    // MARK: IP version

    func testV6AgainstAnIPv4OnlyListenerFailsCleanly() {
        let started = ContinuousClock.now
        for endpoint in ["http://localhost:\(port)/get", "http://api.invalid.test:\(port)/get"] {
            let result = transport(["api.invalid.test:\(port)": "127.0.0.1"], ipVersion: .v6)
                .send(request: HTTPRequest(endpoint: endpoint, timeout: 10))
            XCTAssertTrue([.cannotConnect, .nameResolution].contains(result.error?.code), "\(endpoint): \(String(describing: result.error))")
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
    }

    func testIPVersionPicksTheFamilyOfADualStackName() throws {
        let nginx = try Self.nginx.get()
        let overrides = ["dual.invalid.test:\(nginx.port)": "127.0.0.2,::1"]
        let endpoint = "http://dual.invalid.test:\(nginx.port)/family"
        XCTAssertEqual(try sendOK(transport(overrides, ipVersion: .v4), HTTPRequest(endpoint: endpoint)).metrics.remoteAddress, "127.0.0.2")
        XCTAssertEqual(try sendOK(transport(overrides, ipVersion: .v6), HTTPRequest(endpoint: endpoint)).metrics.remoteAddress, "::1")
    }
}
