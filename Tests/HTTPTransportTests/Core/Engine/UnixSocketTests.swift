import Foundation
import HTTPTransport
import XCTest

/// `Session.Configuration.unixSocketPath`: every request goes over the socket (nginx listens
/// on one in its temporary directory); the URL gives the Host header and the path.
final class UnixSocketTests: XCTestCase {
    static let nginx = SharedPeer({ try NginxPeer(certificates: TestServer.shared.certificates) }, stop: { $0.stop() })

    override class func tearDown() {
        nginx.stop()
        super.tearDown()
    }

    private func transport(socket: String) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.unixSocketPath = socket
        return HTTPTransport(session: Session(configuration: configuration))
    }

    func testRequestsGoOverTheSocketWithHostAndPathFromTheURL() throws {
        let nginx = try Self.nginx.get()
        let response = try sendOK(transport(socket: nginx.unixSocket), HTTPRequest(endpoint: "http://docker.invalid/v1.43/info?all=1"))
        XCTAssertEqual(response.getString(), "HTTP/1.1 docker.invalid /v1.43/info?all=1 unix:\(nginx.unixSocket)\n")
        XCTAssertTrue(nginx.waitForLog("unix:\(nginx.unixSocket) \"GET /v1.43/info?all=1 HTTP/1.1\""), nginx.accessLog)
    }

    func testEveryRequestOfTheSessionUsesTheSocketWhateverTheURLsHost() throws {
        let nginx = try Self.nginx.get()
        let transport = transport(socket: nginx.unixSocket)
        for host in ["first.invalid", "127.0.0.1:1", "second.invalid:8080"] {
            let response = try sendOK(transport, HTTPRequest(endpoint: "http://\(host)/where"))
            XCTAssertEqual(response.getString(), "HTTP/1.1 \(host) /where unix:\(nginx.unixSocket)\n")
        }
    }

    func testMissingSocketFailsWithCannotConnectNamingIt() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString.prefix(8)).sock").path
        let result = transport(socket: missing).send(request: HTTPRequest(endpoint: "http://docker.invalid/info"))
        XCTAssertEqual(result.error?.code, .cannotConnect, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("\(missing)") == true, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("does not exist") == true, "\(String(describing: result.error))")
    }

    func testTooLongOrEmptySocketPathsFailBeforeSending() {
        for path in ["", "/tmp/" + String(repeating: "s", count: 120)] {
            let result = transport(socket: path).send(request: HTTPRequest(endpoint: "http://docker.invalid/info"))
            XCTAssertEqual(result.error?.code, .other, path)
            XCTAssertTrue(result.error?.message.contains("unixSocketPath") == true, path)
        }
    }
}
