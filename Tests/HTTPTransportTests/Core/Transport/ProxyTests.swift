import Foundation
import HTTPTransport
import XCTest

/// `Session.Configuration.proxy` through real proxies started by the tests: tinyproxy (HTTP,
/// CONNECT tunnels, basic authentication) and microsocks (SOCKS5 with a password). Each test
/// checks the proxy's own log, not only the response.
final class ProxyTests: XCTestCase {
    static let authenticating = SharedPeer({ try TinyproxyPeer(username: "proxy-user", password: "proxy-secret") },
                                           stop: { $0.stop() })
    static let socks = SharedPeer({ try MicrosocksPeer() }, stop: { $0.stop() })
    static let nginx = SharedPeer({ try NginxPeer(certificates: TestServer.shared.certificates) }, stop: { $0.stop() })

    override class func tearDown() {
        authenticating.stop()
        socks.stop()
        nginx.stop()
        super.tearDown()
    }

    private var ca: URL { server.certificates.appendingPathComponent("ca.pem") }

    private func transport(_ proxy: Proxy?, security: Security = .noEvaluation) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.proxy = proxy
        return HTTPTransport(session: Session(security: security, configuration: configuration))
    }

    private func withCredentials(_ peer: TinyproxyPeer, noProxy: [String] = []) -> Proxy {
        Proxy(peer.url, username: peer.username, password: peer.password, noProxy: noProxy)
    }

    private func marker() -> String { "m\(UUID().uuidString.prefix(8))" }

    // MARK: HTTP proxy

    func testPlainHTTPGoesThroughTheProxyWithItsCredentials() throws {
        let peer = try Self.authenticating.get()
        let mark = marker()
        let response = try sendOK(transport(withCredentials(peer)), HTTPRequest(endpoint: server.http + "/anything?\(mark)"))
        XCTAssertEqual(try echo(response)["query"] as? String, mark)
        XCTAssertTrue(peer.waitForLog("GET \(server.http)/anything?\(mark)"), peer.log)
    }

    func testHTTPSIsTunnelledThroughTheProxyWithItsCredentials() throws {
        let peer = try Self.authenticating.get()
        let port = server.ports["https"] ?? 0
        let response = try sendOK(transport(withCredentials(peer), security: Security(trustedRootCertificates: ca)),
                                  HTTPRequest(endpoint: server.https() + "/get"))
        XCTAssertEqual(try echo(response)["listener"] as? String, "https")
        XCTAssertTrue(peer.waitForLog("CONNECT localhost:\(port)"), peer.log)
    }

    func testCredentialsWrittenInTheProxyURLAreUsedAndNeverShown() throws {
        let peer = try Self.authenticating.get()
        let proxy = Proxy("http://proxy-user:proxy-secret@127.0.0.1:\(peer.port)")
        XCTAssertFalse(proxy.description.contains("proxy-secret"), proxy.description)
        XCTAssertEqual(try sendOK(transport(proxy), HTTPRequest(endpoint: server.http + "/get")).httpStatus, .ok)
    }

    func testProxyRefusalOfAPlainRequestIsStatus407() throws {
        let peer = try Self.authenticating.get()
        let result = transport(Proxy(peer.url)).send(request: HTTPRequest(endpoint: server.http + "/get"))
        XCTAssertEqual(result.error?.code, .httpStatus, "\(String(describing: result.error))")
        XCTAssertEqual(result.error?.httpStatusCode, .proxyAuthenticationRequired)
    }

    func testProxyRefusalOfATunnelIsStatus407() throws {
        let peer = try Self.authenticating.get()
        let result = transport(Proxy(peer.url), security: Security(trustedRootCertificates: ca))
            .send(request: HTTPRequest(endpoint: server.https() + "/get"))
        XCTAssertEqual(result.error?.code, .httpStatus, "\(String(describing: result.error))")
        XCTAssertEqual(result.error?.httpStatusCode, .proxyAuthenticationRequired)
        XCTAssertTrue(result.error?.message.contains("Proxy(url, username:, password:)") == true)
    }

    func testRequestsProxyAuthorizationHeaderIsNotSentToTheProxy() throws {
        let peer = try Self.authenticating.get()
        // Valid credentials, but in a request header: the proxy never gets them, so it refuses.
        let header = "Basic " + Data("proxy-user:proxy-secret".utf8).base64EncodedString()
        let result = transport(Proxy(peer.url)).send(
            request: HTTPRequest(endpoint: server.http + "/get", headers: ["Proxy-Authorization": header]))
        XCTAssertEqual(result.error?.httpStatusCode, .proxyAuthenticationRequired, "\(String(describing: result.error))")
    }

    func testRequestsProxyAuthorizationHeaderDoesNotReachTheOriginThroughATunnel() throws {
        let peer = try Self.authenticating.get()
        let response = try sendOK(transport(withCredentials(peer), security: Security(trustedRootCertificates: ca)),
                                  HTTPRequest(endpoint: server.https() + "/get", headers: ["Proxy-Authorization": "Basic bGVhazpsZWFr"]))
        let headers = try XCTUnwrap(try echo(response)["headers_dict"] as? [String: String])
        XCTAssertNil(headers["proxy-authorization"])
    }

    func testRequestsProxyAuthorizationHeaderDoesNotReachTheOriginWithoutAProxy() throws {
        let response = try sendOK(transport(.direct),
                                  HTTPRequest(endpoint: server.http + "/get", headers: ["Proxy-Authorization": "Basic bGVhazpsZWFr"]))
        let headers = try XCTUnwrap(try echo(response)["headers_dict"] as? [String: String])
        XCTAssertNil(headers["proxy-authorization"])
    }

    // MARK: The environment

    func testNilProxyTakesTheProxyFromTheEnvironment() throws {
        let peer = try Self.authenticating.get()
        let mark = marker()
        var environment = noProxyEnvironment
        environment["http_proxy"] = "http://proxy-user:proxy-secret@127.0.0.1:\(peer.port)"
        try withEnvironment(environment) {
            _ = try sendOK(transport(nil), HTTPRequest(endpoint: server.http + "/get?\(mark)"))
        }
        XCTAssertTrue(peer.waitForLog("GET \(server.http)/get?\(mark)"), peer.log)
    }

    func testDirectIgnoresTheEnvironmentsProxy() throws {
        var environment = noProxyEnvironment
        environment["http_proxy"] = "http://127.0.0.1:\(TestServer.closedPort())"
        try withEnvironment(environment) {
            XCTAssertEqual(try sendOK(transport(.direct), HTTPRequest(endpoint: server.http + "/get")).httpStatus, .ok)
            // The same environment without `.direct`: the (closed) proxy is used.
            let result = transport(nil).send(request: HTTPRequest(endpoint: server.http + "/get"))
            XCTAssertEqual(result.error?.code, .cannotConnect, "\(String(describing: result.error))")
        }
    }

    func testExplicitProxyIgnoresTheEnvironmentsNoProxy() throws {
        let peer = try Self.authenticating.get()
        let mark = marker()
        var environment = noProxyEnvironment
        environment["no_proxy"] = "127.0.0.1,localhost"
        environment["NO_PROXY"] = "127.0.0.1,localhost"
        try withEnvironment(environment) {
            _ = try sendOK(transport(withCredentials(peer)), HTTPRequest(endpoint: server.http + "/get?\(mark)"))
        }
        XCTAssertTrue(peer.waitForLog("GET \(server.http)/get?\(mark)"), peer.log)
    }

    func testNoProxyListReachesItsHostsDirectly() throws {
        let closed = Proxy("http://127.0.0.1:\(TestServer.closedPort())", noProxy: ["127.0.0.1"])
        XCTAssertEqual(try sendOK(transport(closed), HTTPRequest(endpoint: server.http + "/get")).httpStatus, .ok)
    }

    // MARK: HTTPS proxy

    func testHTTPSProxyIsReachedOverTLSVerifiedByTheSessionsRoots() throws {
        let nginx = try Self.nginx.get()
        let mark = marker()
        let proxy = Proxy("https://localhost:\(nginx.httpsProxyPort)")
        let response = try sendOK(transport(proxy, security: Security(trustedRootCertificates: ca)),
                                  HTTPRequest(endpoint: server.http + "/get?\(mark)"))
        XCTAssertEqual(try echo(response)["query"] as? String, mark)
        XCTAssertTrue(nginx.waitForLog("GET \(server.http)/get?\(mark)"), nginx.accessLog)
    }

    func testHTTPSProxyWithAnUntrustedCertificateFailsWithTLSFailure() throws {
        let nginx = try Self.nginx.get()
        let result = transport(Proxy("https://localhost:\(nginx.httpsProxyPort)")).send(request: HTTPRequest(endpoint: server.http + "/get"))
        XCTAssertEqual(result.error?.code, .tlsFailure, "\(String(describing: result.error))")
    }

    // MARK: SOCKS5

    func testSocks5hProxyWithPasswordReachesTheOrigin() throws {
        let peer = try Self.socks.get()
        let port = server.ports["http"] ?? 0
        let proxy = Proxy("socks5h://127.0.0.1:\(peer.port)", username: peer.username, password: peer.password)
        XCTAssertEqual(try sendOK(transport(proxy), HTTPRequest(endpoint: server.http + "/get")).httpStatus, .ok)
        XCTAssertTrue(peer.waitForLog("connected to 127.0.0.1:\(port)"), peer.log)
    }

    func testSocks5ProxyWithPasswordReachesTheOrigin() throws {
        let peer = try Self.socks.get()
        let proxy = Proxy("socks5://127.0.0.1:\(peer.port)", username: peer.username, password: peer.password)
        XCTAssertEqual(try sendOK(transport(proxy), HTTPRequest(endpoint: server.http + "/get")).httpStatus, .ok)
    }

    func testSocks5ProxyRefusingTheCredentialsFailsWithCannotConnect() throws {
        let peer = try Self.socks.get()
        let proxy = Proxy("socks5h://127.0.0.1:\(peer.port)", username: peer.username, password: "wrong")
        let result = transport(proxy).send(request: HTTPRequest(endpoint: server.http + "/get"))
        XCTAssertEqual(result.error?.code, .cannotConnect, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("SOCKS") == true, "\(String(describing: result.error))")
    }

    // MARK: Bad configuration

    func testInvalidProxyURLsFailEverySendBeforeAnythingIsSent() throws {
        let cases = ["ftp://127.0.0.1:21", "127.0.0.1:3128", "http://", "http://127.0.0.1:99999", "socks4://127.0.0.1:1080",
                     "http://127.0.0.1:3128/path", "http://proxy host:3128", ""]
        for url in cases {
            let result = transport(Proxy(url)).send(request: HTTPRequest(endpoint: server.http + "/get"))
            XCTAssertEqual(result.error?.code, .invalidURL, url)
            XCTAssertTrue(result.error?.message.contains("proxy URL") == true, "\(url): \(String(describing: result.error))")
            XCTAssertNil(result.error?.curlCode, url)
        }
    }

    func testUnsupportedSchemeMessageListsTheSupportedOnes() {
        let result = transport(Proxy("socks4://127.0.0.1:1080")).send(request: HTTPRequest(endpoint: server.http + "/get"))
        XCTAssertTrue(result.error?.message.contains("http://, https://, socks5:// or socks5h://") == true,
                      "\(String(describing: result.error))")
    }
}
