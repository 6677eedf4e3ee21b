import Foundation
import HTTPTransport
import XCTest

/// RFC 9111 freshness and revalidation against the local server, whose `/cache/<key>` route
/// counts the requests it answers per key: a hit is a response the server never saw.
final class CacheFreshnessRuleTests: XCTestCase {
    private func transport() -> HTTPTransport { cachingTransport(HTTPCache()) }

    func testWithoutACacheEveryResponseSaysDisabled() throws {
        let resource = CachedResource(["cc": "max-age=60"])
        let response = try sendOK(HTTPTransport(), resource.request)
        XCTAssertEqual(response.metrics.cacheStatus, .disabled)
    }

    func testAFreshResponseIsServedWithoutARequest() throws {
        let resource = CachedResource(["cc": "max-age=60"])
        let transport = transport()
        let first = try sendOK(transport, resource.request)
        let second = try sendOK(transport, resource.request)
        XCTAssertEqual(first.metrics.cacheStatus, .miss)
        XCTAssertEqual(second.metrics.cacheStatus, .hit)
        XCTAssertEqual(second.body, first.body)
        XCTAssertEqual(second.httpStatus, .ok)
        XCTAssertEqual(try resource.count(), 1)
    }

    func testAHitCarriesItsAgeAndNoNetworkFigures() throws {
        let resource = CachedResource(["cc": "max-age=60", "age": "7"])
        let transport = transport()
        _ = try sendOK(transport, resource.request)
        let hit = try sendOK(transport, resource.request)
        XCTAssertEqual(hit.metrics.cacheStatus, .hit)
        XCTAssertGreaterThanOrEqual(Int(hit.header(named: "Age") ?? "") ?? 0, 7)
        XCTAssertEqual(hit.metrics.bytesReceived, 0)
        XCTAssertEqual(hit.metrics.remoteAddress, "")
        XCTAssertFalse(hit.metrics.connectionReused)
        XCTAssertEqual(hit.request.url.absoluteString, resource.url)
    }

    func testAHitPassesTheResponseInterceptors() throws {
        let seen = Protected<[HTTPCacheStatus]>([])
        let recorder = ClosureResponseInterceptor { response in
            seen.withLock { $0.append(response.metrics.cacheStatus) }
            var response = response
            response.headers.add("X-Intercepted", "yes")
            return response
        }
        let transport = cachingTransport(HTTPCache(), responseInterceptors: [recorder])
        let resource = CachedResource(["cc": "max-age=60"])
        _ = try sendOK(transport, resource.request)
        let hit = try sendOK(transport, resource.request)
        XCTAssertEqual(seen.value, [.miss, .hit])
        XCTAssertEqual(hit.header(named: "X-Intercepted"), "yes")
    }

    func testAStaleResponseIsRevalidatedWithItsEntityTag() throws {
        let resource = CachedResource(["cc": "max-age=0", "etag": "1"])
        let transport = transport()
        let first = try sendOK(transport, resource.request)
        let second = try sendOK(transport, resource.request)
        XCTAssertEqual(second.metrics.cacheStatus, .revalidated)
        XCTAssertEqual(second.httpStatus, .ok)
        XCTAssertEqual(second.body, first.body)
        // The 304's headers replace the stored ones.
        XCTAssertEqual(second.header(named: "X-Served"), "2")
        let record = try resource.record()
        XCTAssertEqual(record.count, 2)
        XCTAssertEqual(record.requests.last?["if_none_match"] as? String, "\"\(resource.key)-v1\"")
    }

    func testAStaleResponseIsRevalidatedWithItsLastModifiedDate() throws {
        let resource = CachedResource(["cc": "max-age=0", "lm": "1"])
        let transport = transport()
        let first = try sendOK(transport, resource.request)
        let second = try sendOK(transport, resource.request)
        XCTAssertEqual(second.metrics.cacheStatus, .revalidated)
        XCTAssertEqual(second.body, first.body)
        let record = try resource.record()
        XCTAssertEqual(record.requests.last?["if_modified_since"] as? String, first.header(named: "Last-Modified"))
    }

    func testAChangedResourceReplacesTheStoredResponse() throws {
        let resource = CachedResource(["cc": "max-age=0", "etag": "1"])
        let transport = transport()
        _ = try sendOK(transport, resource.request)
        try resource.bump()
        let changed = try sendOK(transport, resource.request)
        XCTAssertEqual(changed.metrics.cacheStatus, .miss)
        XCTAssertEqual(try cacheBody(changed)["version"] as? Int, 2)
        let again = try sendOK(transport, resource.request)
        XCTAssertEqual(again.metrics.cacheStatus, .revalidated)
        XCTAssertEqual(try cacheBody(again)["version"] as? Int, 2)
        XCTAssertEqual(try resource.record().requests.last?["if_none_match"] as? String, "\"\(resource.key)-v2\"")
    }

    func testARequestWithItsOwnConditionalHeaderForAStaleResponsePassesThrough() throws {
        let resource = CachedResource(["cc": "max-age=0", "etag": "1"])
        let transport = cachingTransport(HTTPCache(), useDefaultValidation: false)
        _ = try sendOK(transport, resource.request)
        let own = try sendOK(transport, resource.request.with(header: "If-None-Match", value: "\"\(resource.key)-v1\""))
        XCTAssertEqual(own.httpStatus, .notModified)
        XCTAssertEqual(own.metrics.cacheStatus, .miss)
        XCTAssertEqual(try resource.count(), 2)
    }

    func testNoStoreIsNeverStored() throws {
        let resource = CachedResource(["cc": "no-store, max-age=60"])
        try assertSecondSend(resource, through: transport(), is: .miss, serverRequests: 2)
    }

    func testNoCacheIsRevalidatedEveryTime() throws {
        let resource = CachedResource(["cc": "no-cache, max-age=60", "etag": "1"])
        let transport = transport()
        _ = try sendOK(transport, resource.request)
        XCTAssertEqual(try sendOK(transport, resource.request).metrics.cacheStatus, .revalidated)
        XCTAssertEqual(try sendOK(transport, resource.request).metrics.cacheStatus, .revalidated)
        XCTAssertEqual(try resource.count(), 3)
    }

    func testPrivateResponsesAreStored() throws {
        let resource = CachedResource(["cc": "private, max-age=60"])
        try assertSecondSend(resource, through: transport(), is: .hit, serverRequests: 1)
    }

    func testMaxStaleServesAStaleResponse() throws {
        let resource = CachedResource(["cc": "max-age=0", "etag": "1"])
        try assertSecondSend(resource,
                             then: resource.request.with(header: "Cache-Control", value: "max-stale=3600"),
                             through: transport(), is: .hit, serverRequests: 1)
    }

    func testMustRevalidateOverridesMaxStale() throws {
        let resource = CachedResource(["cc": "max-age=0, must-revalidate", "etag": "1"])
        try assertSecondSend(resource,
                             then: resource.request.with(header: "Cache-Control", value: "max-stale=3600"),
                             through: transport(), is: .revalidated, serverRequests: 2)
    }

    func testExpiresInTheFutureIsFresh() throws {
        let resource = CachedResource(["expires_in": "60"])
        try assertSecondSend(resource, through: transport(), is: .hit, serverRequests: 1)
    }

    func testExpiresInThePastIsStale() throws {
        let resource = CachedResource(["expires_in": "-60"])
        try assertSecondSend(resource, through: transport(), is: .miss, serverRequests: 2)
    }

    func testAnUnreadableExpiresIsStale() throws {
        // Stale at once (no heuristic beside an explicit Expires), so revalidated.
        let resource = CachedResource(["expires": "0", "lm": "1"])
        try assertSecondSend(resource, through: transport(), is: .revalidated, serverRequests: 2)
    }

    func testAnAgeBeyondMaxAgeIsStale() throws {
        let resource = CachedResource(["cc": "max-age=60", "age": "120"])
        try assertSecondSend(resource, through: transport(), is: .miss, serverRequests: 2)
    }

    func testLastModifiedAloneGivesAHeuristicLifetime() throws {
        // Last-Modified is in 2015: a tenth of the time since then is far more than a day (the cap).
        let resource = CachedResource(["lm": "1"])
        try assertSecondSend(resource, through: transport(), is: .hit, serverRequests: 1)
    }

    func testAStatusNotCacheableByDefaultGetsNoHeuristicLifetime() throws {
        let resource = CachedResource(["lm": "1", "status": "403"])
        let transport = cachingTransport(HTTPCache(), useDefaultValidation: false)
        _ = try sendOK(transport, resource.request)
        let second = try sendOK(transport, resource.request)
        XCTAssertEqual(second.httpStatus, .forbidden)
        XCTAssertEqual(second.metrics.cacheStatus, .miss)
        XCTAssertEqual(try resource.count(), 2)
    }

    func testAFreshNotFoundIsServedFromTheCacheAndStillFailsValidation() throws {
        let resource = CachedResource(["cc": "max-age=60", "status": "404"])
        let transport = transport()
        let first = transport.send(request: resource.request)
        let second = transport.send(request: resource.request)
        XCTAssertEqual(first.error?.httpStatusCode, .notFound)
        XCTAssertEqual(second.error?.code, .httpStatus)
        XCTAssertEqual(second.error?.httpStatusCode, .notFound)
        XCTAssertEqual(try resource.count(), 1)
    }

    func testAServerErrorWithoutExplicitFreshnessIsNotStored() throws {
        let resource = CachedResource(["lm": "1", "status": "500"])
        let transport = transport()
        _ = transport.send(request: resource.request)
        _ = transport.send(request: resource.request)
        XCTAssertEqual(try resource.count(), 2)
    }

    func testACachedPermanentRedirectIsFollowedWithoutAskingAgain() throws {
        let target = CachedResource(["cc": "max-age=60"])
        let redirect = CachedResource(["status": "301", "location": target.url, "cc": "max-age=60"])
        let transport = transport()
        _ = try sendOK(transport, redirect.request)
        let second = try sendOK(transport, redirect.request)
        XCTAssertEqual(second.metrics.cacheStatus, .hit)
        XCTAssertEqual(second.metrics.redirectCount, 1)
        XCTAssertEqual(try cacheBody(second)["key"] as? String, target.key)
        XCTAssertEqual(try redirect.count(), 1)
        XCTAssertEqual(try target.count(), 1)
    }
}
