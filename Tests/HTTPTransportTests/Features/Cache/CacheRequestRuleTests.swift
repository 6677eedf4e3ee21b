import Foundation
import HTTPTransport
import XCTest

/// What the request decides: its Cache-Control, its varied fields, its credentials, its method
/// (unsafe methods invalidate), and the requests the cache leaves alone.
final class CacheRequestRuleTests: XCTestCase {
    private func transport() -> HTTPTransport { cachingTransport(HTTPCache()) }

    // MARK: Request Cache-Control

    func testRequestNoCacheRevalidatesAFreshResponse() throws {
        let resource = CachedResource(["cc": "max-age=60", "etag": "1"])
        try assertSecondSend(resource,
                             then: resource.request.with(header: "Cache-Control", value: "no-cache"),
                             through: transport(), is: .revalidated, serverRequests: 2)
    }

    func testPragmaNoCacheRevalidatesWhenThereIsNoCacheControl() throws {
        let resource = CachedResource(["cc": "max-age=60", "etag": "1"])
        try assertSecondSend(resource,
                             then: resource.request.with(header: "Pragma", value: "no-cache"),
                             through: transport(), is: .revalidated, serverRequests: 2)
    }

    func testRequestMaxAgeZeroRevalidatesAFreshResponse() throws {
        let resource = CachedResource(["cc": "max-age=60", "etag": "1"])
        try assertSecondSend(resource,
                             then: resource.request.with(header: "Cache-Control", value: "max-age=0"),
                             through: transport(), is: .revalidated, serverRequests: 2)
    }

    func testRequestMinFreshRejectsAResponseAboutToExpire() throws {
        let resource = CachedResource(["cc": "max-age=60"])
        try assertSecondSend(resource,
                             then: resource.request.with(header: "Cache-Control", value: "min-fresh=120"),
                             through: transport(), is: .miss, serverRequests: 2)
    }

    func testRequestNoStoreKeepsTheResponseOutOfTheCache() throws {
        let resource = CachedResource(["cc": "max-age=60"])
        let transport = transport()
        _ = try sendOK(transport, resource.request.with(header: "Cache-Control", value: "no-store"))
        XCTAssertEqual(try sendOK(transport, resource.request).metrics.cacheStatus, .miss)
        XCTAssertEqual(try resource.count(), 2)
    }

    func testOnlyIfCachedWithNothingStoredFailsWithoutARequest() throws {
        let resource = CachedResource(["cc": "max-age=60"])
        let result = transport().send(request: resource.request.with(header: "Cache-Control", value: "only-if-cached"))
        XCTAssertEqual(result.error?.code, .other)
        XCTAssertEqual(result.error?.httpStatusCode, .gatewayTimeout)
        XCTAssertTrue(result.error?.message.contains("only-if-cached") ?? false, result.error?.message ?? "")
        XCTAssertEqual(try resource.count(), 0)
    }

    func testOnlyIfCachedServesAStoredResponse() throws {
        let resource = CachedResource(["cc": "max-age=60"])
        try assertSecondSend(resource,
                             then: resource.request.with(header: "Cache-Control", value: "only-if-cached"),
                             through: transport(), is: .hit, serverRequests: 1)
    }

    func testOnlyIfCachedDoesNotRevalidateAStaleResponse() throws {
        let resource = CachedResource(["cc": "max-age=0", "etag": "1"])
        let transport = transport()
        _ = try sendOK(transport, resource.request)
        let result = transport.send(request: resource.request.with(header: "Cache-Control", value: "only-if-cached"))
        XCTAssertEqual(result.error?.httpStatusCode, .gatewayTimeout)
        XCTAssertEqual(try resource.count(), 1)
    }

    // MARK: Vary

    func testVaryKeepsOneVariantPerValueOfTheNamedHeader() throws {
        let resource = CachedResource(["cc": "max-age=60", "vary": "Accept-Language"])
        let transport = transport()
        func send(_ language: String) throws -> HTTPResponse {
            try sendOK(transport, resource.request.with(header: "Accept-Language", value: language))
        }
        XCTAssertEqual(try send("en").metrics.cacheStatus, .miss)
        XCTAssertEqual(try send("fr").metrics.cacheStatus, .miss)
        let english = try send("en")
        let french = try send("fr")
        XCTAssertEqual(english.metrics.cacheStatus, .hit)
        XCTAssertEqual(french.metrics.cacheStatus, .hit)
        XCTAssertEqual((try cacheBody(english)["vary"] as? [String: String])?["Accept-Language"], "en")
        XCTAssertEqual((try cacheBody(french)["vary"] as? [String: String])?["Accept-Language"], "fr")
        XCTAssertEqual(try sendOK(transport, resource.request).metrics.cacheStatus, .miss)
        XCTAssertEqual(try resource.count(), 3)
    }

    func testVaryStarIsNeverServedFromTheCache() throws {
        let resource = CachedResource(["cc": "max-age=60", "vary": "*"])
        try assertSecondSend(resource, through: transport(), is: .miss, serverRequests: 2)
    }

    // MARK: Credentials

    func testResponsesAreKeptApartByAuthorization() throws {
        let resource = CachedResource(["cc": "max-age=60"])
        let transport = transport()
        let alice = resource.request.with(bearerToken: "token-alice")
        let bob = resource.request.with(bearerToken: "token-bob")
        let anonymous = resource.request
        for request in [alice, bob, anonymous] {
            XCTAssertEqual(try sendOK(transport, request).metrics.cacheStatus, .miss)
        }
        for request in [alice, bob, anonymous] {
            XCTAssertEqual(try sendOK(transport, request).metrics.cacheStatus, .hit)
        }
        let record = try resource.record()
        XCTAssertEqual(record.count, 3)
        XCTAssertEqual(record.requests.map { $0["authorization"] as? String },
                       ["Bearer token-alice", "Bearer token-bob", nil])
    }

    func testTheSessionsCredentialHeadersAreKeptApart() throws {
        let resource = CachedResource(["cc": "max-age=60"])
        let transport = cachingTransport(HTTPCache(), credentialHeaders: ["X-Api-Key"])
        _ = try sendOK(transport, resource.request.with(header: "X-Api-Key", value: "one"))
        let other = try sendOK(transport, resource.request.with(header: "X-Api-Key", value: "two"))
        XCTAssertEqual(other.metrics.cacheStatus, .miss)
        XCTAssertEqual(try resource.count(), 2)
    }

    func testACredentialAddedByARequestInterceptorIsPartOfTheKey() throws {
        let resource = CachedResource(["cc": "max-age=60"])
        let token = Protected("first")
        let authorizing = ClosureRequestInterceptor { request in
            var request = request
            request.setValue("Bearer \(token.value)", forHTTPHeaderField: "Authorization")
            return request
        }
        var configuration = Session.Configuration()
        configuration.cache = HTTPCache()
        let transport = HTTPTransport(session: Session(configuration: configuration), requestInterceptors: [authorizing])
        _ = try sendOK(transport, resource.request)
        XCTAssertEqual(try sendOK(transport, resource.request).metrics.cacheStatus, .hit)
        token.value = "second"
        XCTAssertEqual(try sendOK(transport, resource.request).metrics.cacheStatus, .miss)
        XCTAssertEqual(try resource.count(), 2)
    }

    func testCookiesKeepResponsesApart() throws {
        let resource = CachedResource(["cc": "max-age=60"])
        let transport = transport()
        _ = try sendOK(transport, resource.request.with(cookieName: "session", value: "a"))
        let other = try sendOK(transport, resource.request.with(cookieName: "session", value: "b"))
        XCTAssertEqual(other.metrics.cacheStatus, .miss)
        XCTAssertEqual(try resource.count(), 2)
    }

    func testSetCookieIsNotReplayedByAHit() throws {
        let resource = CachedResource(["cc": "max-age=60", "set_cookie": "session=old"])
        let transport = transport()
        XCTAssertNotNil(try sendOK(transport, resource.request).header(named: "Set-Cookie"))
        let hit = try sendOK(transport, resource.request)
        XCTAssertEqual(hit.metrics.cacheStatus, .hit)
        XCTAssertNil(hit.header(named: "Set-Cookie"))
    }

    // MARK: Invalidation by unsafe methods

    func testUnsafeMethodsInvalidateTheURL() throws {
        for method in [HTTPRequest.HTTPMethod.post, .put, .patch, .delete] {
            let resource = CachedResource(["cc": "max-age=60"])
            let transport = transport()
            _ = try sendOK(transport, resource.request)
            _ = try sendOK(transport, HTTPRequest(httpMethod: method, endpoint: resource.url))
            let after = try sendOK(transport, resource.request)
            XCTAssertEqual(after.metrics.cacheStatus, .miss, "\(method)")
            XCTAssertEqual(try resource.count(), 3, "\(method)")
        }
    }

    func testAFailedPostDoesNotInvalidate() throws {
        let resource = CachedResource(["cc": "max-age=60"])
        let transport = transport()
        _ = try sendOK(transport, resource.request)
        let failed = transport.send(request: HTTPRequest(httpMethod: .post, endpoint: resource.url, headers: ["X-Status": "500"]))
        XCTAssertEqual(failed.error?.httpStatusCode, .internalServerError)
        XCTAssertEqual(try sendOK(transport, resource.request).metrics.cacheStatus, .hit)
    }

    func testAPostInvalidatesItsLocationOfTheSameOrigin() throws {
        let target = CachedResource(["cc": "max-age=60"])
        let transport = transport()
        _ = try sendOK(transport, target.request)
        let path = String(target.url.dropFirst(server.http.count))
        let poster = CachedResource(["location": path, "content_location": "/elsewhere"])
        _ = try sendOK(transport, HTTPRequest(httpMethod: .post, endpoint: poster.url))
        XCTAssertEqual(try sendOK(transport, target.request).metrics.cacheStatus, .miss)
    }

    func testAPostDoesNotInvalidateALocationOfAnotherOrigin() throws {
        let target = CachedResource(["cc": "max-age=60"])
        let transport = transport()
        _ = try sendOK(transport, target.request)
        // localhost is another origin than 127.0.0.1, even on the same port.
        let elsewhere = target.url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        _ = try sendOK(transport, HTTPRequest(httpMethod: .post, endpoint: CachedResource(["location": elsewhere]).url))
        XCTAssertEqual(try sendOK(transport, target.request).metrics.cacheStatus, .hit)
    }

    // MARK: Requests the cache leaves alone

    func testAGetWithABodyIsNeitherStoredNorServed() throws {
        let resource = CachedResource(["cc": "max-age=60"])
        let transport = transport()
        let withBody = resource.request.with(parameters: ["q": 1], encoding: .json)
        _ = try sendOK(transport, withBody)
        XCTAssertEqual(try sendOK(transport, withBody).metrics.cacheStatus, .miss)
        XCTAssertEqual(try sendOK(transport, resource.request).metrics.cacheStatus, .miss)
        XCTAssertEqual(try resource.count(), 3)
    }

    func testADownloadToAFileIsNeitherStoredNorServed() throws {
        let resource = CachedResource(["cc": "max-age=60"])
        let transport = transport()
        let destination = try temporaryCacheDirectory().appendingPathComponent("body.json")
        _ = try sendOK(transport, resource.request)
        let download = try sendOK(transport, resource.request.downloading(to: destination))
        XCTAssertEqual(download.metrics.cacheStatus, .miss)
        XCTAssertEqual(download.fileURL, destination)
        XCTAssertEqual(try resource.count(), 2)
    }

    func testHeadPassesThrough() throws {
        let resource = CachedResource(["cc": "max-age=60"])
        let transport = transport()
        _ = try sendOK(transport, resource.request)
        let head = try sendOK(transport, HTTPRequest(httpMethod: .head, endpoint: resource.url))
        XCTAssertEqual(head.metrics.cacheStatus, .miss)
        XCTAssertEqual(try resource.count(), 2)
        XCTAssertEqual(try sendOK(transport, resource.request).metrics.cacheStatus, .hit)
    }
}
