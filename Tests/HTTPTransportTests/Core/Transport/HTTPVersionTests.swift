import Foundation
import HTTPTransport
import XCTest

/// `Session.Configuration.httpVersion` against nginx: h2c by prior knowledge on a clear-text
/// HTTP/2 listener, and HTTP/2 or HTTP/1.1 over TLS.
final class HTTPVersionTests: XCTestCase {
    static let nginx = SharedPeer({ try NginxPeer(certificates: TestServer.shared.certificates) }, stop: { $0.stop() })

    override class func tearDown() {
        nginx.stop()
        super.tearDown()
    }

    private func transport(_ version: Session.Configuration.HTTPVersion) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.httpVersion = version
        let security = Security(trustedRootCertificates: server.certificates.appendingPathComponent("ca.pem"))
        return HTTPTransport(session: Session(security: security, configuration: configuration))
    }

    func testPriorKnowledgeSpeaksHTTP2InClearTextToNginx() throws {
        let nginx = try Self.nginx.get()
        let response = try sendOK(transport(.http2PriorKnowledge), HTTPRequest(endpoint: "http://127.0.0.1:\(nginx.h2cPort)/h2c"))
        XCTAssertEqual(response.metrics.httpVersion, "2")
        XCTAssertEqual(response.getString(), "HTTP/2.0 127.0.0.1:\(nginx.h2cPort) /h2c 127.0.0.1\n")
    }

    func testAutomaticAgainstAClearTextHTTP2ServerFailsSayingHowToFixIt() throws {
        let nginx = try Self.nginx.get()
        let result = transport(.automatic).send(request: HTTPRequest(endpoint: "http://127.0.0.1:\(nginx.h2cPort)/h2c"))
        XCTAssertEqual(result.error?.code, .badResponse, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("httpVersion = .http2PriorKnowledge") == true, "\(String(describing: result.error))")
    }

    func testAutomaticNegotiatesHTTP2OverTLS() throws {
        let nginx = try Self.nginx.get()
        let response = try sendOK(transport(.automatic), HTTPRequest(endpoint: "https://localhost:\(nginx.tlsPort)/tls"))
        XCTAssertEqual(response.metrics.httpVersion, "2")
    }

    func testHTTP1_1StaysOnHTTP1_1OverTLSEvenWhenTheServerOffersHTTP2() throws {
        let nginx = try Self.nginx.get()
        let response = try sendOK(transport(.http1_1), HTTPRequest(endpoint: "https://localhost:\(nginx.tlsPort)/tls"))
        XCTAssertEqual(response.metrics.httpVersion, "1.1")
        XCTAssertEqual(response.getString()?.hasPrefix("HTTP/1.1 "), true)
    }

    func testHTTP1_1AgainstTheTestServerOverTLSIsHTTP1_1() throws {
        let response = try sendOK(transport(.http1_1), HTTPRequest(endpoint: server.https() + "/get"))
        XCTAssertEqual(response.metrics.httpVersion, "1.1")
    }

    func testPriorKnowledgeAgainstAnHTTP1ServerFails() {
        let result = transport(.http2PriorKnowledge).send(request: HTTPRequest(endpoint: server.http + "/get", timeout: 10))
        XCTAssertNotNil(result.error, "an HTTP/1.1-only server cannot answer HTTP/2 frames")
    }
}
