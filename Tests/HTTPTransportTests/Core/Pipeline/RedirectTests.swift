import Foundation
import HTTPTransport
import XCTest

/// Redirects are followed by the pipeline, so interceptors see every hop.
final class RedirectTests: XCTestCase {
    func testRedirectChainIsFollowedAndCounted() throws {
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/redirect/3"))
        XCTAssertEqual(try echo(response)["path"] as? String, "/redirect/0")
        XCTAssertEqual(response.metrics.redirectCount, 3)
    }

    func testEveryHopPassesTheInterceptors() throws {
        let seen = Recorder<String>()
        let counting = ClosureRequestInterceptor { request in
            seen.add(request.url.path)
            return request
        }
        _ = try sendOK(HTTPTransport(requestInterceptors: [counting]), HTTPRequest(endpoint: server.http + "/redirect/2"))
        XCTAssertEqual(seen.values, ["/redirect/2", "/redirect/1", "/redirect/0"])
    }

    func testRedirectLoopStopsAtTheLimit() {
        var configuration = Session.Configuration()
        configuration.maxRedirects = 4
        let transport = HTTPTransport(session: Session(configuration: configuration))
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/redirect-loop"))
        XCTAssertEqual(result.error?.code, .tooManyRedirects)
    }

    func testFollowingCanBeTurnedOff() {
        var configuration = Session.Configuration()
        configuration.maxRedirects = 0
        let transport = HTTPTransport(session: Session(configuration: configuration), useDefaultValidation: false)
        let response = transport.send(request: HTTPRequest(endpoint: server.http + "/redirect/1")).value
        XCTAssertEqual(response?.httpStatus, .found)
        XCTAssertNotNil(response?.header(named: "Location"))
    }

    func testPostBecomesGetAfter302AndKeepsMethodAfter307() throws {
        let target = (server.http + "/anything/target").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let post = HTTPRequest(httpMethod: .post, endpoint: server.http + "/redirect-to?url=\(target)&status_code=302")
            .with(parameters: ["a": 1], encoding: .json)
        let after302 = try echo(try sendOK(HTTPTransport(), post))
        XCTAssertEqual(after302["method"] as? String, "GET")
        XCTAssertEqual(after302["body_text"] as? String, "")

        let keep = HTTPRequest(httpMethod: .post, endpoint: server.http + "/redirect-to?url=\(target)&status_code=307")
            .with(parameters: ["a": 1], encoding: .json)
        let after307 = try echo(try sendOK(HTTPTransport(), keep))
        XCTAssertEqual(after307["method"] as? String, "POST")
        XCTAssertEqual((after307["json"] as? [String: Any])?["a"] as? Int, 1)
    }

    func testCredentialsAreDroppedWhenTheOriginChanges() throws {
        // 127.0.0.1 → localhost is another host.
        let port = server.ports["http"] ?? 0
        let target = "http://localhost:\(port)/anything".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let request = HTTPRequest(endpoint: server.http + "/redirect-to?url=\(target)")
            .with(header: "Authorization", value: "Bearer secret")
            .with(header: "Proxy-Authorization", value: "Basic x")
            .with(cookieName: "s", value: "1")
            .with(header: "X-Other", value: "kept")
        let headers = try XCTUnwrap(try echo(try sendOK(HTTPTransport(), request))["headers_dict"] as? [String: String])
        XCTAssertNil(headers["authorization"])
        XCTAssertNil(headers["proxy-authorization"])
        XCTAssertNil(headers["cookie"])
        XCTAssertEqual(headers["x-other"], "kept")
    }

    func testCredentialsAreKeptOnTheSameOrigin() throws {
        let request = HTTPRequest(endpoint: server.http + "/redirect/1").with(header: "Authorization", value: "Bearer secret")
        let headers = try XCTUnwrap(try echo(try sendOK(HTTPTransport(), request))["headers_dict"] as? [String: String])
        XCTAssertEqual(headers["authorization"], "Bearer secret")
    }
}
