import Foundation
import HTTPTransport
import XCTest

/// `Session.Configuration.addressPolicy`: the address each connection goes to is checked after
/// name resolution, for every hop and both families, and a refused one fails with
/// `.addressNotAllowed` before a byte is sent (the server's request counter does not move).
final class AddressPolicyTests: XCTestCase {
    static let nginx = SharedPeer({ try NginxPeer(certificates: TestServer.shared.certificates) }, stop: { $0.stop() })

    override class func tearDown() {
        nginx.stop()
        super.tearDown()
    }

    private func transport(_ policy: AddressPolicy, configure: (inout Session.Configuration) -> Void = { _ in }) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.addressPolicy = policy
        configure(&configuration)
        return HTTPTransport(session: Session(configuration: configuration))
    }

    private var port: Int { server.ports["http"] ?? 0 }

    /// The test server's request count on its plain listener (admin routes are not counted).
    private func requestCount() throws -> Int {
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/_admin/count"))
        return try XCTUnwrap(try echo(response)["count"] as? Int)
    }

    private func assertRefused(_ endpoint: String, _ transport: HTTPTransport, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try requestCount()
        let result = transport.send(request: HTTPRequest(endpoint: endpoint))
        XCTAssertEqual(result.error?.code, .addressNotAllowed, "\(endpoint): \(String(describing: result.error))", file: file, line: line)
        XCTAssertEqual(try requestCount(), before, "\(endpoint) reached the server", file: file, line: line)
    }

    // MARK: .publicOnly

    func testPublicOnlyRefusesLoopbackByAddress() throws {
        let transport = transport(.publicOnly)
        try assertRefused(server.http + "/get", transport)
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/get"))
        XCTAssertTrue(result.error?.message.contains("127.0.0.1 (loopback address)") == true, "\(String(describing: result.error))")
    }

    func testPublicOnlyRefusesLoopbackByName() throws {
        try assertRefused("http://localhost:\(port)/get", transport(.publicOnly))
    }

    func testPublicOnlyRefusesOddSpellingsOfLoopback() throws {
        let transport = transport(.publicOnly)
        for host in ["127.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1", "[::ffff:127.0.0.1]", "[::1]", "[0:0:0:0:0:0:0:1]"] {
            try assertRefused("http://\(host):\(port)/get", transport)
        }
    }

    func testPublicOnlyRefusesANameThatResolvesToALoopbackAddress() throws {
        try assertRefused("http://internal.invalid.test:\(port)/get",
                          transport(.publicOnly) { $0.resolveOverrides = ["internal.invalid.test:\(self.port)": "127.0.0.1"] })
    }

    func testPublicOnlyRefusesAUnixSocket() throws {
        let nginx = try Self.nginx.get()
        let result = transport(.publicOnly) { $0.unixSocketPath = nginx.unixSocket }
            .send(request: HTTPRequest(endpoint: "http://docker.invalid/info"))
        XCTAssertEqual(result.error?.code, .addressNotAllowed, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("Unix socket") == true)
    }

    // MARK: .custom

    func testCustomRuleReceivesTheNumericAddressOfEachFamily() throws {
        let nginx = try Self.nginx.get()
        let seen = Protected<[String]>([])
        let transport = transport(.custom { address in seen.withLock { $0.append(address) }; return true })
        _ = try sendOK(transport, HTTPRequest(endpoint: "http://127.0.0.1:\(nginx.port)/a"))
        _ = try sendOK(transport, HTTPRequest(endpoint: "http://[::1]:\(nginx.port)/b"))
        _ = try sendOK(transport, HTTPRequest(endpoint: "http://[::ffff:127.0.0.2]:\(nginx.port)/c"))
        XCTAssertEqual(seen.value, ["127.0.0.1", "::1", "127.0.0.2"])
    }

    func testCustomRuleReceivesTheUnixSocketsPath() throws {
        let nginx = try Self.nginx.get()
        let seen = Protected<[String]>([])
        let transport = transport(.custom { address in seen.withLock { $0.append(address) }; return true }) {
            $0.unixSocketPath = nginx.unixSocket
        }
        _ = try sendOK(transport, HTTPRequest(endpoint: "http://docker.invalid/info"))
        XCTAssertEqual(seen.value, [nginx.unixSocket])
    }

    func testRedirectFromAnAllowedAddressToARefusedOneIsRefusedOnThatHop() throws {
        let nginx = try Self.nginx.get()
        let seen = Protected<[String]>([])
        let onlyFirst = transport(.custom { address in seen.withLock { $0.append(address) }; return address == "127.0.0.1" })
        let result = onlyFirst.send(request: HTTPRequest(endpoint: "http://127.0.0.1:\(nginx.port)/redirect-to-127.0.0.2"))
        XCTAssertEqual(result.error?.code, .addressNotAllowed, "\(String(describing: result.error))")
        XCTAssertEqual(result.error?.url, "http://127.0.0.2:\(nginx.port)/landed")
        XCTAssertEqual(seen.value, ["127.0.0.1", "127.0.0.2"])
        // The same redirect under a rule that allows both lands, so only the rule stopped it.
        let both = transport(.custom { $0 == "127.0.0.1" || $0 == "127.0.0.2" })
        let landed = try sendOK(both, HTTPRequest(endpoint: "http://127.0.0.1:\(nginx.port)/redirect-to-127.0.0.2"))
        XCTAssertEqual(landed.getString(), "HTTP/1.1 127.0.0.2:\(nginx.port) /landed 127.0.0.2\n")
        XCTAssertTrue(nginx.waitForLog(#"127.0.0.2 "GET /landed"#))
        XCTAssertEqual(nginx.accessLog.components(separatedBy: "/landed").count - 1, 1, nginx.accessLog)
    }

    func testRedirectToIPv6LoopbackIsRefusedUnderPublicOnlyEvenWhenTheFirstHopWasAllowed() throws {
        let nginx = try Self.nginx.get()
        let policy = AddressPolicy.custom { IPv6Check.isIPv4($0) }
        let result = transport(policy).send(request: HTTPRequest(endpoint: "http://127.0.0.1:\(nginx.port)/redirect-to-v6"))
        XCTAssertEqual(result.error?.code, .addressNotAllowed, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("::1") == true, "\(String(describing: result.error))")
    }

    func testAllowedAddressStaysAllowedAndRefusedStaysRefusedOnAReusedHandle() throws {
        let transport = transport(.custom { $0 == "127.0.0.1" })
        for _ in 0..<3 {
            XCTAssertEqual(try sendOK(transport, HTTPRequest(endpoint: server.http + "/get")).httpStatus, .ok)
            try assertRefused("http://[::ffff:127.0.0.3]:\(port)/get", transport)
        }
    }

    // MARK: Proxies

    func testPolicyWithAnExplicitProxyFailsEverySend() throws {
        let proxy = Proxy("http://127.0.0.1:\(TestServer.closedPort())")
        let result = transport(.custom { _ in true }) { $0.proxy = proxy }.send(request: HTTPRequest(endpoint: server.http + "/get"))
        XCTAssertEqual(result.error?.code, .addressNotAllowed, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("proxy") == true)
    }

    func testPolicyWithAProxyFromTheEnvironmentFailsEverySend() throws {
        var environment = noProxyEnvironment
        environment["http_proxy"] = "http://user:hidden@127.0.0.1:\(TestServer.closedPort())"
        let result = withEnvironment(environment) {
            transport(.custom { _ in true }).send(request: HTTPRequest(endpoint: server.http + "/get"))
        }
        XCTAssertEqual(result.error?.code, .addressNotAllowed, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("http_proxy") == true, "\(String(describing: result.error))")
        XCTAssertFalse(result.error?.message.contains("hidden") == true, "the proxy's password must not be shown")
    }

    func testPolicyConnectsDirectlyAndChecksAHostTheEnvironmentsNoProxyExempts() throws {
        var environment = noProxyEnvironment
        environment["http_proxy"] = "http://127.0.0.1:\(TestServer.closedPort())"
        environment["no_proxy"] = "127.0.0.1"
        try withEnvironment(environment) {
            XCTAssertEqual(try sendOK(transport(.custom { _ in true }), HTTPRequest(endpoint: server.http + "/get")).httpStatus, .ok)
            try assertRefused(server.http + "/get", transport(.publicOnly))
        }
    }

    func testPolicyConnectsDirectlyAndChecksAHostTheProxysNoProxyListExempts() throws {
        let proxy = Proxy("http://127.0.0.1:\(TestServer.closedPort())", noProxy: ["127.0.0.1"])
        XCTAssertEqual(try sendOK(transport(.custom { _ in true }) { $0.proxy = proxy }, HTTPRequest(endpoint: server.http + "/get")).httpStatus, .ok)
        try assertRefused(server.http + "/get", transport(.publicOnly) { $0.proxy = proxy })
    }
}

/// A rule for the tests: IPv4 addresses only.
enum IPv6Check {
    static func isIPv4(_ address: String) -> Bool { !address.contains(":") }
}
