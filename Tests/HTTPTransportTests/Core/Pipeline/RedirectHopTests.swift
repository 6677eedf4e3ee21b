import Foundation
import HTTPTransport
import XCTest

/// The redirect hop rules (DESIGN §1b "Redirect hops") against the local server, with two
/// origins on it: `http://127.0.0.1:P` (the first request's) and `http://localhost:P`.
/// What the server's echo received is what reached the wire.
final class RedirectHopTests: XCTestCase {
    private let token = SetHeaderInterceptor(name: "Authorization", value: "Bearer HOP-TOKEN")

    // MARK: Credentials added by an interceptor

    func testInterceptorAuthorizationIsNotSentToAnotherOrigin() throws {
        let transport = HTTPTransport(requestInterceptors: [token])
        let response = try sendOK(transport, HTTPRequest(endpoint: redirect(from: server.http, to: otherOrigin + "/anything")))
        XCTAssertEqual(try echo(response)["path"] as? String, "/anything")
        XCTAssertNil(try receivedHeaders(response)["authorization"])
    }

    func testInterceptorAuthorizationIsKeptOnASameOriginHop() throws {
        let transport = HTTPTransport(requestInterceptors: [token])
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/redirect/2"))
        XCTAssertEqual(response.metrics.redirectCount, 2)
        XCTAssertEqual(try receivedHeaders(response)["authorization"], "Bearer HOP-TOKEN")
    }

    func testAHopBackToTheFirstOriginCarriesCredentialsAgain() throws {
        // 127.0.0.1 → localhost → 127.0.0.1: the request's own header and cookie come back too.
        let back = redirect(from: otherOrigin, to: server.http + "/anything/back")
        let request = HTTPRequest(endpoint: redirect(from: server.http, to: back))
            .with(header: "X-Api-Key", value: "OWN-KEY").with(cookieName: "own", value: "1")
        var configuration = Session.Configuration()
        configuration.credentialHeaders = ["Authorization", "X-Api-Key"]
        let transport = HTTPTransport(session: Session(configuration: configuration), requestInterceptors: [token])
        let response = try sendOK(transport, request)
        XCTAssertEqual(response.metrics.redirectCount, 2)
        let headers = try receivedHeaders(response)
        XCTAssertEqual(headers["authorization"], "Bearer HOP-TOKEN")
        XCTAssertEqual(headers["x-api-key"], "OWN-KEY")
        XCTAssertEqual(headers["cookie"], "own=1")
    }

    func testASecondHopOnTheOtherOriginStillCarriesNoCredentials() throws {
        // 127.0.0.1 → localhost → localhost: the origin that counts is the first request's,
        // not the previous hop's.
        let request = HTTPRequest(endpoint: redirect(from: server.http, to: otherOrigin + "/redirect/1"))
            .with(bearerToken: "OWN-TOKEN")
        let response = try sendOK(HTTPTransport(requestInterceptors: [token]), request)
        XCTAssertEqual(response.metrics.redirectCount, 2)
        XCTAssertEqual(try echo(response)["path"] as? String, "/redirect/0")
        XCTAssertNil(try receivedHeaders(response)["authorization"])
    }

    func testCustomCredentialHeadersReplaceTheDefaultList() throws {
        var configuration = Session.Configuration()
        configuration.credentialHeaders = ["X-Api-Key"]
        let transport = HTTPTransport(session: Session(configuration: configuration), requestInterceptors: [
            SetHeaderInterceptor(name: "X-Api-Key", value: "HOP-KEY"), token,
        ])
        let crossed = try receivedHeaders(try sendOK(transport, HTTPRequest(
            endpoint: redirect(from: server.http, to: otherOrigin + "/anything"))))
        XCTAssertNil(crossed["x-api-key"])
        XCTAssertEqual(crossed["authorization"], "Bearer HOP-TOKEN", "Authorization is no longer on the list")

        let same = try receivedHeaders(try sendOK(transport, HTTPRequest(endpoint: server.http + "/redirect/1")))
        XCTAssertEqual(same["x-api-key"], "HOP-KEY")
    }

    // MARK: Cookies

    func testRequestCookieStaysWithItsOriginWhileTheHopsOwnCookiesAreSent() throws {
        let storage = CookieStorage()
        let otherURL = try XCTUnwrap(URL(string: otherOrigin + "/"))
        let firstURL = try XCTUnwrap(URL(string: server.http + "/"))
        storage.store(setCookieHeaders: ["theirs=2; Path=/"], for: otherURL)
        storage.store(setCookieHeaders: ["first=0; Path=/"], for: firstURL)
        let transport = HTTPTransport(requestInterceptors: [AddCookieInterceptor(cookieProvider: storage)])
        let request = HTTPRequest(endpoint: redirect(from: server.http, to: otherOrigin + "/anything"))
            .with(cookieName: "own", value: "1")
        let headers = try receivedHeaders(try sendOK(transport, request))
        XCTAssertEqual(headers["cookie"], "theirs=2")
    }

    // MARK: redirectedFrom

    func testRedirectedFromIsNilFirstThenThePreviousHopsURL() throws {
        let hops = Recorder<(URL, URL?)>()
        let recording = ClosureRequestInterceptor { request in
            hops.add((request.url, request.redirectedFrom))
            return request
        }
        let start = redirect(from: server.http, to: otherOrigin + "/redirect/1")
        _ = try sendOK(HTTPTransport(requestInterceptors: [recording]), HTTPRequest(endpoint: start))
        let expected: [(String, String?)] = [
            (start, nil),
            (otherOrigin + "/redirect/1", start),
            (otherOrigin + "/redirect/0", otherOrigin + "/redirect/1"),
        ]
        XCTAssertEqual(hops.values.map(\.0.absoluteString), expected.map(\.0))
        XCTAssertEqual(hops.values.map { $0.1?.absoluteString }, expected.map(\.1))
    }

    // MARK: Scheme changes

    func testHTTPSToHTTPRedirectIsRefusedAndNothingIsRequestedOverHTTP() throws {
        let transport = HTTPTransport(security: trustingTestCA())
        try resetListenerRequestCounts()
        let result = transport.send(request: HTTPRequest(endpoint: redirect(from: server.https(), to: server.http + "/anything")))
        let error = try XCTUnwrap(result.error)
        XCTAssertEqual(error.code, .insecureRedirect, "\(error)")
        XCTAssertEqual(error.httpStatusCode, .found)
        let counts = try listenerRequestCounts()
        XCTAssertEqual(counts["https"], 1)
        XCTAssertEqual(counts["http"], 0, "the plain listener must not be asked anything")
    }

    func testHTTPSToHTTPRedirectIsFollowedWhenAllowed() throws {
        var configuration = Session.Configuration()
        configuration.allowsInsecureRedirects = true
        let transport = HTTPTransport(session: Session(security: trustingTestCA(), configuration: configuration))
        let response = try sendOK(transport, HTTPRequest(endpoint: redirect(from: server.https(), to: server.http + "/anything")))
        XCTAssertEqual(try echo(response)["listener"] as? String, "http")
    }

    func testHTTPToHTTPSRedirectIsFollowed() throws {
        let transport = HTTPTransport(security: trustingTestCA())
        let response = try sendOK(transport, HTTPRequest(endpoint: redirect(from: server.http, to: server.https() + "/anything")))
        XCTAssertEqual(try echo(response)["listener"] as? String, "https")
        XCTAssertEqual(response.metrics.redirectCount, 1)
    }
}
