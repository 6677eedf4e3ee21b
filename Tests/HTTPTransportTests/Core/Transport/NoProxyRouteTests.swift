import Foundation
import HTTPTransport
import XCTest

/// Proxy or direct is decided once, by one rule, and libcurl is told exactly that decision: the
/// address policy sees the address libcurl really connects to for every form of `noProxy` entry
/// (names, suffixes, IPv4 and IPv6 addresses and CIDR ranges, `*`).
final class NoProxyRouteTests: XCTestCase {
    static let tinyproxy = SharedPeer({ try TinyproxyPeer() }, stop: { $0.stop() })

    override class func tearDown() {
        tinyproxy.stop()
        super.tearDown()
    }

    /// Sends to `endpoint` through a proxy on 127.0.0.2 that refuses connections, with `noProxy`,
    /// and returns the addresses libcurl connected to (as the address policy saw them).
    private func connectedAddresses(noProxy: [String], endpoint: String) -> (addresses: [String], result: HTTPTransport.Result) {
        let seen = Recorder<String>()
        var configuration = Session.Configuration()
        configuration.proxy = Proxy("http://127.0.0.2:\(TestServer.closedPort())", noProxy: noProxy)
        configuration.addressPolicy = .custom { address in
            seen.add(address)
            return true
        }
        let transport = HTTPTransport(session: Session(configuration: configuration))
        let result = transport.send(request: HTTPRequest(endpoint: endpoint, timeout: 5))
        return (seen.values, result)
    }

    func testEveryNoProxyFormThatCoversTheHostConnectsDirectly() {
        let port = server.ports["http"] ?? 0
        let cases: [(token: String, endpoint: String)] = [
            ("127.0.0.1", "http://127.0.0.1:\(port)/get"),
            ("127.0.0.0/8", "http://127.0.0.1:\(port)/get"),
            ("localhost", "http://localhost:\(port)/get"),
            (".localhost", "http://localhost:\(port)/get"),
            ("*", "http://127.0.0.1:\(port)/get"),
            ("::1", "http://[::1]:\(port)/get"),
            ("::1/128", "http://[::1]:\(port)/get"),
            ("::/0", "http://[::1]:\(port)/get"),
        ]
        for (token, endpoint) in cases {
            let (addresses, result) = connectedAddresses(noProxy: [token], endpoint: endpoint)
            XCTAssertFalse(addresses.isEmpty, "\(token): nothing connected: \(String(describing: result.error))")
            XCTAssertFalse(addresses.contains("127.0.0.2"), "\(token): \(endpoint) went through the proxy: \(addresses)")
            XCTAssertNotEqual(result.error?.code, .addressNotAllowed, "\(token): \(String(describing: result.error))")
        }
    }

    func testAnIPv6RangeInNoProxyLetsTheAddressPolicyCheckTheRealTarget() {
        // The attack: the policy allows the proxy's address and refuses ::1; a noProxy entry in
        // CIDR form must not make libcurl take the proxy (which would reach ::1 unchecked).
        var configuration = Session.Configuration()
        configuration.proxy = Proxy("http://127.0.0.2:\(TestServer.closedPort())", noProxy: ["::1/128"])
        configuration.addressPolicy = .custom { $0 != "::1" }
        let transport = HTTPTransport(session: Session(configuration: configuration))
        let result = transport.send(request: HTTPRequest(endpoint: "http://[::1]:\(server.ports["http"] ?? 0)/get", timeout: 5))
        XCTAssertEqual(result.error?.code, .addressNotAllowed, "\(String(describing: result.error))")
    }

    func testEntriesThatDoNotCoverTheHostGoThroughTheProxy() throws {
        let peer = try Self.tinyproxy.get()
        for token in ["127.0.0.2", "10.0.0.0/8", "example.com", ".example.com", "::1", "::1/128", "127.0.0.1.example"] {
            var configuration = Session.Configuration()
            configuration.proxy = Proxy(peer.url, noProxy: [token])
            let transport = HTTPTransport(session: Session(configuration: configuration))
            let mark = "m\(UUID().uuidString.prefix(8))"
            XCTAssertEqual(try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything?\(mark)")).httpStatus, .ok)
            XCTAssertTrue(peer.waitForLog("GET \(server.http)/anything?\(mark)"), "\(token): not proxied")
        }
    }

    func testTheEnvironmentsNoProxyIsDecidedByTheSameRule() throws {
        let peer = try Self.tinyproxy.get()
        // An explicit proxy ignores the environment's no_proxy: libcurl must not read it either.
        setenv("no_proxy", "127.0.0.1", 1)
        setenv("NO_PROXY", "127.0.0.1", 1)
        defer {
            setenv("no_proxy", "127.0.0.1,localhost", 1)
            setenv("NO_PROXY", "127.0.0.1,localhost", 1)
        }
        var configuration = Session.Configuration()
        configuration.proxy = Proxy(peer.url)
        let transport = HTTPTransport(session: Session(configuration: configuration))
        let mark = "m\(UUID().uuidString.prefix(8))"
        XCTAssertEqual(try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything?\(mark)")).httpStatus, .ok)
        XCTAssertTrue(peer.waitForLog("GET \(server.http)/anything?\(mark)"), peer.log)
    }
}
