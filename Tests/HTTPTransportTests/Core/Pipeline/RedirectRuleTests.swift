import Foundation
import HTTPTransport
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
}
