import Foundation
@testable import HTTPTransport
import XCTest

/// Which redirects the pipeline follows and what the next hop sends, through `StubEngine`
/// (no server): the request each hop hands the engine is recorded.
final class RedirectRuleTests: XCTestCase {
    private let start = "http://a.stub.test/dir/start"
    private let target = "http://a.stub.test/target"

    /// A stub where `start` redirects (`status`) to `location` and everything else answers 200.
    private func redirecting(_ status: Int, to location: String?) -> RecordingStub {
        let start = start
        return RecordingStub { request in
            request.url.absoluteString == start ? RecordingStub.redirect(request, status, to: location)
                : RawResponse(request: request, statusCode: .ok, data: Data())
        }
    }

    private func upload(_ method: HTTPRequest.HTTPMethod) -> DataUploadHTTPRequest {
        DataUploadHTTPRequest(httpMethod: method, endpoint: start, headers: ["Content-Type": "text/plain", "X-Keep": "1"],
                              data: Data("payload".utf8))
    }

    // MARK: Methods and bodies

    func testPOSTBecomesAGETWithoutBodyOrContentTypeAfter301And302() throws {
        for status in [301, 302] {
            let stub = redirecting(status, to: target)
            _ = try stub.transport().send(request: upload(.post)).get()
            let next = try XCTUnwrap(stub.requests.last)
            XCTAssertEqual(stub.requests.count, 2)
            XCTAssertEqual(next.method, .get, "\(status)")
            XCTAssertNil(next.body, "\(status)")
            XCTAssertNil(next.value(forHTTPHeaderField: "Content-Type"), "\(status)")
            XCTAssertEqual(next.value(forHTTPHeaderField: "X-Keep"), "1", "\(status)")
        }
    }

    func testOtherMethodsKeepTheirBodyAfter301And302() throws {
        for status in [301, 302] {
            let stub = redirecting(status, to: target)
            _ = try stub.transport().send(request: upload(.put)).get()
            let next = try XCTUnwrap(stub.requests.last)
            XCTAssertEqual(next.method, .put, "\(status)")
            XCTAssertEqual(next.httpBody, Data("payload".utf8), "\(status)")
        }
    }

    func test303TurnsEveryMethodButHEADIntoAGET() throws {
        for method in [HTTPRequest.HTTPMethod.post, .put, .patch, .delete, .get] {
            let stub = redirecting(303, to: target)
            _ = try stub.transport().send(request: upload(method)).get()
            let next = try XCTUnwrap(stub.requests.last)
            XCTAssertEqual(next.method, .get, "\(method)")
            XCTAssertNil(next.body, "\(method)")
            XCTAssertNil(next.value(forHTTPHeaderField: "Content-Type"), "\(method)")
        }
        let stub = redirecting(303, to: target)
        _ = try stub.transport().send(request: HTTPRequest(httpMethod: .head, endpoint: start)).get()
        XCTAssertEqual(stub.requests.last?.method, .head)
    }

    func test307And308KeepTheMethodAndTheBody() throws {
        for status in [307, 308] {
            for method in [HTTPRequest.HTTPMethod.post, .put, .patch] {
                let stub = redirecting(status, to: target)
                _ = try stub.transport().send(request: upload(method)).get()
                let next = try XCTUnwrap(stub.requests.last)
                XCTAssertEqual(next.url.absoluteString, target)
                XCTAssertEqual(next.method, method, "\(status) \(method)")
                XCTAssertEqual(next.httpBody, Data("payload".utf8), "\(status) \(method)")
                XCTAssertEqual(next.value(forHTTPHeaderField: "Content-Type"), "text/plain", "\(status) \(method)")
            }
        }
    }

    // MARK: Locations

    func testRelativeAndProtocolRelativeLocationsResolveAgainstTheHop() throws {
        let cases: [(String, String)] = [
            ("next?x=1", "http://a.stub.test/dir/next?x=1"),
            ("/top", "http://a.stub.test/top"),
            ("../up", "http://a.stub.test/up"),
            ("?only=query", "http://a.stub.test/dir/start?only=query"),
            ("//b.stub.test/p", "http://b.stub.test/p"),
            ("https://c.stub.test:8443/x", "https://c.stub.test:8443/x"),
        ]
        for (location, expected) in cases {
            let stub = redirecting(302, to: location)
            _ = try stub.transport().send(request: HTTPRequest(endpoint: start)).get()
            XCTAssertEqual(stub.requests.last?.url.absoluteString, expected, location)
        }
    }

    func testProtocolRelativeLocationKeepsHTTPS() throws {
        let stub = RecordingStub { request in
            request.url.path == "/start" ? RecordingStub.redirect(request, to: "//b.stub.test/p")
                : RawResponse(request: request, statusCode: .ok, data: Data())
        }
        _ = try stub.transport().send(request: HTTPRequest(endpoint: "https://a.stub.test/start")).get()
        XCTAssertEqual(stub.requests.last?.url.absoluteString, "https://b.stub.test/p")
    }

    func testARedirectWithoutLocationIsReturnedAsItIs() throws {
        for location in [nil, ""] as [String?] {
            let stub = redirecting(302, to: location)
            let response = try stub.transport(useDefaultValidation: false).send(request: HTTPRequest(endpoint: start)).get()
            XCTAssertEqual(response.httpStatus, .found)
            XCTAssertEqual(stub.requests.count, 1)
        }
    }

    func testAnUnusableLocationIsABadResponseThatHidesItsSecrets() throws {
        // Another scheme, no host, an unparsable host: each with a password and a secret query value.
        let locations = [
            "ftp://user:HUNTER2@files.stub.test/x?token=SECRET-TOKEN",
            "mailto:someone@stub.test?token=SECRET-TOKEN",
            "http:///?token=SECRET-TOKEN",
            "http://user:HUNTER2@[zz/?token=SECRET-TOKEN",
        ]
        for location in locations {
            let stub = redirecting(302, to: location)
            let error = try XCTUnwrap(stub.transport().send(request: HTTPRequest(endpoint: start)).error, location)
            XCTAssertEqual(error.code, .badResponse, "\(location): \(error)")
            XCTAssertEqual(error.httpStatusCode, .found, location)
            XCTAssertEqual(stub.requests.count, 1, location)
            for secret in ["HUNTER2", "SECRET-TOKEN"] {
                XCTAssertFalse(error.message.contains(secret), "\(location): \(error.message)")
                XCTAssertFalse("\(error)".contains(secret), "\(location): \(error)")
            }
        }
    }

    // MARK: Limits

    func testReachingMaxRedirectsFailsWithTooManyRedirects() throws {
        let stub = RecordingStub { request in
            let hop = Int(request.url.lastPathComponent) ?? 0
            return RecordingStub.redirect(request, to: "/\(hop + 1)")
        }
        var configuration = Session.Configuration()
        configuration.maxRedirects = 3
        let error = try XCTUnwrap(stub.transport(configuration: configuration)
            .send(request: HTTPRequest(endpoint: "http://a.stub.test/0")).error)
        XCTAssertEqual(error.code, .tooManyRedirects)
        XCTAssertEqual(error.httpStatusCode, .found)
        XCTAssertEqual(stub.requests.map(\.url.path), ["/0", "/1", "/2", "/3"])
    }

    func testZeroMaxRedirectsReturnsTheRedirectItself() throws {
        var configuration = Session.Configuration()
        configuration.maxRedirects = 0
        let stub = redirecting(302, to: target)
        let response = try stub.transport(configuration: configuration, useDefaultValidation: false)
            .send(request: HTTPRequest(endpoint: start)).get()
        XCTAssertEqual(response.httpStatus, .found)
        XCTAssertEqual(response.header(named: "Location"), target)
        XCTAssertEqual(stub.requests.count, 1)
        // With validation on, the 3xx fails as a status, not as too many redirects.
        let validated = redirecting(302, to: target).transport(configuration: configuration)
            .send(request: HTTPRequest(endpoint: start))
        XCTAssertEqual(validated.error?.code, .httpStatus)
    }

    func testARedirectLoopStopsAtTheDefaultLimit() throws {
        let stub = RecordingStub { request in RecordingStub.redirect(request, 301, to: request.url.absoluteString) }
        let error = try XCTUnwrap(stub.transport().send(request: HTTPRequest(endpoint: start)).error)
        XCTAssertEqual(error.code, .tooManyRedirects)
        XCTAssertEqual(stub.requests.count, Session.Configuration().maxRedirects + 1)
    }

    // MARK: The rule on its own (`RedirectRule.nextRequest`, no pipeline)

    private func hop(_ method: HTTPRequest.HTTPMethod, _ url: String = "http://a.stub.test/dir/start",
                     body: RawRequest.Body? = .data(Data("payload".utf8))) throws -> RawRequest {
        RawRequest(method: method, url: try XCTUnwrap(URL(string: url)),
                   headers: ["Content-Type": "text/plain", "Content-Length": "7", "X-Keep": "1"], body: body)
    }

    private func redirect(_ request: RawRequest, _ status: Int, to location: String? = "/target",
                      allowsInsecure: Bool = false) -> Swift.Result<RawRequest, HTTPTransportError>? {
        var headers = HTTPHeaders()
        if let location { headers["Location"] = location }
        let response = RawResponse(request: request, statusCode: HTTPStatusCode(rawValue: status), headers: headers)
        return RedirectRule.nextRequest(after: request, response: response, allowsInsecureRedirects: allowsInsecure)
    }

    func testTheNextRequestOfEachRedirectStatusAndMethod() throws {
        // (status, method) → the next hop's method, and whether it keeps the body and its fields.
        let cases: [(Int, HTTPRequest.HTTPMethod, HTTPRequest.HTTPMethod, Bool)] = [
            (301, .post, .get, false), (302, .post, .get, false), (301, .put, .put, true), (302, .delete, .delete, true),
            (303, .post, .get, false), (303, .put, .get, false), (303, .head, .head, true),
            (307, .post, .post, true), (308, .post, .post, true), (308, .patch, .patch, true),
        ]
        for (status, method, expected, keeps) in cases {
            let next = try XCTUnwrap(redirect(try hop(method), status)?.get(), "\(status) \(method)")
            XCTAssertEqual(next.method, expected, "\(status) \(method)")
            XCTAssertEqual(next.body != nil, keeps, "\(status) \(method)")
            XCTAssertEqual(next.headers["Content-Type"] != nil, keeps, "\(status) \(method)")
            XCTAssertEqual(next.headers["Content-Length"] != nil, keeps, "\(status) \(method)")
            XCTAssertEqual(next.headers["X-Keep"], "1")
            XCTAssertEqual(next.url.absoluteString, "http://a.stub.test/target")
            XCTAssertEqual(next.redirectedFrom?.absoluteString, "http://a.stub.test/dir/start")
        }
    }

    func testAStreamedBodyIsNotSentAgainButA303OrAPOSTMovedByA301MayDropIt() throws {
        let stream = RawRequest.Body.stream(StreamedBody(length: nil) { nil })
        XCTAssertNil(redirect(try hop(.post, body: stream), 307), "307 would send the body again: the redirect is the result")
        XCTAssertNil(redirect(try hop(.put, body: stream), 308))
        XCTAssertNil(redirect(try hop(.put, body: stream), 301), "301 keeps a PUT's body")
        for status in [301, 302, 303] {
            let next = try XCTUnwrap(redirect(try hop(.post, body: stream), status)?.get(), "\(status)")
            XCTAssertEqual(next.method, .get)
            XCTAssertNil(next.body)
        }
    }

    func testOnlyTheFiveRedirectStatusesWithALocationAndNoErrorAreFollowed() throws {
        for status in [200, 300, 304, 305, 306, 309, 399] {
            XCTAssertNil(redirect(try hop(.get), status), "\(status)")
        }
        XCTAssertNil(redirect(try hop(.get), 302, to: nil))
        XCTAssertNil(redirect(try hop(.get), 302, to: ""))
        let request = try hop(.get)
        var failed = RawResponse(request: request, statusCode: .found, headers: ["Location": "/target"])
        failed.error = HTTPTransportError(code: .timeout, message: "the body did not arrive")
        XCTAssertNil(RedirectRule.nextRequest(after: request, response: failed, allowsInsecureRedirects: false))
    }

    func testHTTPSToHTTPIsRefusedWithTheRedirectsStatusAndFieldsUnlessAllowed() throws {
        let secure = try hop(.get, "https://a.stub.test/start")
        guard case .failure(let error) = redirect(secure, 308, to: "http://a.stub.test/plain") else {
            return XCTFail("https to http is refused")
        }
        XCTAssertEqual(error.code, .insecureRedirect)
        XCTAssertEqual(error.httpStatusCode, .permanentRedirect)
        XCTAssertEqual(error.responseHeaders["Location"], "http://a.stub.test/plain")
        XCTAssertEqual(error.url, "https://a.stub.test/start")
        XCTAssertEqual(try redirect(secure, 308, to: "http://a.stub.test/plain", allowsInsecure: true)?.get().url.scheme, "http")
        XCTAssertEqual(try redirect(secure, 302, to: "//b.stub.test/p")?.get().url.absoluteString, "https://b.stub.test/p")
        XCTAssertEqual(try redirect(try hop(.get), 302, to: "https://a.stub.test/up")?.get().url.scheme, "https")
    }

    func testSameOriginComparesSchemeHostAndEffectivePort() throws {
        let url = { (text: String) in try XCTUnwrap(URL(string: text)) }
        XCTAssertTrue(RedirectRule.sameOrigin(try url("http://A.stub.test/x"), try url("HTTP://a.STUB.test:80/y")))
        XCTAssertTrue(RedirectRule.sameOrigin(try url("https://a.stub.test/"), try url("https://a.stub.test:443/")))
        XCTAssertFalse(RedirectRule.sameOrigin(try url("http://a.stub.test/"), try url("https://a.stub.test/")))
        XCTAssertFalse(RedirectRule.sameOrigin(try url("http://a.stub.test/"), try url("http://a.stub.test:8080/")))
        XCTAssertFalse(RedirectRule.sameOrigin(try url("http://a.stub.test/"), try url("http://b.stub.test/")))
        XCTAssertFalse(RedirectRule.sameOrigin(try url("http://a.stub.test:443/"), try url("https://a.stub.test/")))
    }
}
