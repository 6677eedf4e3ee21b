import Foundation
@testable import HTTPTransport
import XCTest

/// The RFC 9111 rules as values: directives, age and lifetime arithmetic at chosen times,
/// storability, the serve / validate / network decision, 304 merging and invalidation targets.
final class CachePolicyTests: XCTestCase {
    private let url = URL(string: "http://api.test/items?page=1")!
    private let t0 = 1_800_000_000.0
    private let digester = FieldDigester(salt: FieldDigester.randomSalt())

    private func httpDate(_ seconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    private func freshness(_ headers: HTTPHeaders, status: Int = 200, requestTime: Double? = nil,
                           responseTime: Double? = nil, now: Double) -> CacheFreshness {
        CacheFreshness(status: status, headers: headers, directives: CacheDirectives(headers),
                       requestTime: requestTime ?? t0, responseTime: responseTime ?? t0, now: now)
    }

    private func stored(_ headers: HTTPHeaders, vary: [String] = [], request: RawRequest? = nil) -> StoredResponse {
        let rule = VaryRule(names: vary)
        return StoredResponse(url: url.absoluteString, credentialDigest: String(repeating: "a", count: 64), vary: rule,
                              varyDigest: rule.digest(of: request ?? RawRequest(url: url), using: digester), status: 200, headers: headers,
                              body: Data("stored".utf8), requestTime: t0, responseTime: t0)
    }

    // MARK: Directives

    func testDirectivesAreReadCaseInsensitivelyWithQuotesAndTheFirstOccurrenceWins() {
        let directives = CacheDirectives(["Cache-Control": #"Max-Age="30", PRIVATE, no-cache="Set-Cookie, X", max-age=90"#])
        XCTAssertEqual(directives.maxAge, 30)
        XCTAssertTrue(directives.isPrivate)
        XCTAssertTrue(directives.noCache)
        XCTAssertFalse(directives.noStore)
    }

    func testAnInvalidMaxAgeMeansStaleAndAnInvalidMaxStaleLoosensNothing() {
        let response = CacheDirectives(["Cache-Control": "max-age=soon"])
        XCTAssertEqual(response.maxAge, 0)
        let request = CacheDirectives(["Cache-Control": "max-stale=-1, min-fresh=x"], isRequest: true)
        XCTAssertNil(request.maxStale)
        XCTAssertNil(request.minFresh)
        XCTAssertEqual(CacheDirectives(["Cache-Control": "max-stale"]).maxStale, Int.max)
    }

    func testHugeDeltaSecondsAreCappedAtTwoToTheThirtyFirst() {
        XCTAssertEqual(CacheDirectives(["Cache-Control": "max-age=99999999999999999999999"]).maxAge, 2_147_483_648)
    }

    func testPragmaNoCacheCountsOnlyForARequestWithoutCacheControl() {
        XCTAssertTrue(CacheDirectives(["Pragma": "no-cache"], isRequest: true).noCache)
        XCTAssertFalse(CacheDirectives(["Pragma": "no-cache", "Cache-Control": "max-age=5"], isRequest: true).noCache)
    }

    func testFieldDigestsDependOnTheSaltAndOnEveryValue() {
        let other = FieldDigester(salt: FieldDigester.randomSalt())
        let names = ["authorization", "cookie"]
        let alice: HTTPHeaders = ["Authorization": "Bearer alice"]
        XCTAssertEqual(digester.digest(names, of: alice), digester.digest(names, of: ["authorization": "Bearer alice"]))
        XCTAssertNotEqual(digester.digest(names, of: alice), other.digest(names, of: alice))
        XCTAssertNotEqual(digester.digest(names, of: alice), digester.digest(names, of: ["Authorization": "Bearer bob"]))
        XCTAssertNotEqual(digester.digest(names, of: [:]), digester.digest(names, of: ["Authorization": ""]))
        // Length prefixes: moving bytes between two fields changes the digest.
        XCTAssertNotEqual(digester.digest(names, of: ["Authorization": "a", "Cookie": "bc"]),
                          digester.digest(names, of: ["Authorization": "ab", "Cookie": "c"]))
    }

    // MARK: Age and lifetime (RFC 9111 §4.2)

    func testExpiresMinusDateIsTheLifetime() {
        let figures = freshness(["Date": httpDate(t0), "Expires": httpDate(t0 + 100)], now: t0 + 99)
        XCTAssertEqual(figures.lifetime, 100)
        XCTAssertTrue(figures.isFresh)
        XCTAssertFalse(freshness(["Date": httpDate(t0), "Expires": httpDate(t0 + 100)], now: t0 + 100).isFresh)
    }

    func testMaxAgeWinsOverExpires() {
        XCTAssertEqual(freshness(["Cache-Control": "max-age=10", "Expires": httpDate(t0 + 1000)], now: t0).lifetime, 10)
    }

    func testAnUnreadableExpiresMeansAlreadyExpired() {
        let figures = freshness(["Expires": "0", "Last-Modified": httpDate(t0 - 86_400)], now: t0)
        XCTAssertEqual(figures.lifetime, 0)
    }

    func testExpiresWithoutDateCountsFromTheResponseTime() {
        XCTAssertEqual(freshness(["Expires": httpDate(t0 + 60)], responseTime: t0 + 10, now: t0 + 10).lifetime, 50)
    }

    func testTheAgeFieldPlusTheResponseDelayIsTheInitialAge() {
        // Sent at t0, answered at t0 + 2 with Age: 30 and a Date equal to the arrival.
        let figures = freshness(["Age": "30", "Date": httpDate(t0 + 2)], requestTime: t0, responseTime: t0 + 2, now: t0 + 12)
        XCTAssertEqual(figures.currentAge, 30 + 2 + 10)
    }

    func testTheApparentAgeWinsWhenTheDateIsOlderThanTheAgeSays() {
        // Date 100 s before arrival, Age 5: the response is at least 100 s old.
        let figures = freshness(["Age": "5", "Date": httpDate(t0 - 100)], now: t0 + 1)
        XCTAssertEqual(figures.currentAge, 101)
    }

    func testADateInTheFutureGivesNoNegativeAge() {
        XCTAssertEqual(freshness(["Date": httpDate(t0 + 500)], now: t0).currentAge, 0)
    }

    func testTheHeuristicLifetimeIsATenthOfTheTimeSinceLastModified() {
        let figures = freshness(["Date": httpDate(t0), "Last-Modified": httpDate(t0 - 1000)], now: t0)
        XCTAssertEqual(figures.lifetime, 100)
    }

    func testTheHeuristicLifetimeIsAtMostADay() {
        let figures = freshness(["Date": httpDate(t0), "Last-Modified": httpDate(t0 - 365 * 86_400)], now: t0)
        XCTAssertEqual(figures.lifetime, 86_400)
    }

    func testNoHeuristicForAStatusNotCacheableByDefaultUnlessPublic() {
        let headers: HTTPHeaders = ["Date": httpDate(t0), "Last-Modified": httpDate(t0 - 1000)]
        XCTAssertEqual(freshness(headers, status: 403, now: t0).lifetime, 0)
        var marked = headers
        marked.add("Cache-Control", "public")
        XCTAssertEqual(freshness(marked, status: 403, now: t0).lifetime, 100)
    }

    // MARK: Storing (§3)

    func testCacheableByDefaultStatusesAreStorableAndOthersNeedExplicitFreshness() {
        let none = CacheDirectives()
        for status in [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501] {
            XCTAssertTrue(CachePolicy.isStorable(status: status, headers: [:], requestDirectives: none), "\(status)")
        }
        for status in [201, 302, 307, 403, 500, 503, 206, 304] {
            XCTAssertFalse(CachePolicy.isStorable(status: status, headers: [:], requestDirectives: none), "\(status)")
        }
        XCTAssertTrue(CachePolicy.isStorable(status: 500, headers: ["Cache-Control": "max-age=5"], requestDirectives: none))
        XCTAssertFalse(CachePolicy.isStorable(status: 206, headers: ["Cache-Control": "max-age=5"], requestDirectives: none))
    }

    func testNoStoreOnEitherSideAndVaryStarAreNeverStored() {
        XCTAssertFalse(CachePolicy.isStorable(status: 200, headers: ["Cache-Control": "no-store, max-age=9"],
                                              requestDirectives: CacheDirectives()))
        XCTAssertFalse(CachePolicy.isStorable(status: 200, headers: [:],
                                              requestDirectives: CacheDirectives(["Cache-Control": "no-store"])))
        XCTAssertFalse(CachePolicy.isStorable(status: 200, headers: ["Vary": "Accept, *"], requestDirectives: CacheDirectives()))
    }

    func testHopByHopFieldsAndSetCookieAreNotStored() {
        let headers: HTTPHeaders = ["Connection": "X-Trace", "X-Trace": "1", "Keep-Alive": "timeout=5",
                                    "Set-Cookie": "a=b", "ETag": "\"1\""]
        XCTAssertEqual(CachePolicy.storedHeaders(headers).map(\.name), ["ETag"])
    }

    // MARK: Serve, validate or fetch (§4)

    private func decide(_ storedHeaders: HTTPHeaders, request: HTTPHeaders = [:], now: Double) -> CachePolicy.Decision {
        let raw = RawRequest(url: url, headers: request)
        return CachePolicy.decide(raw, directives: CacheDirectives(request, isRequest: true),
                                  stored: [stored(storedHeaders)], digester: digester, now: now)
    }

    func testAFreshResponseIsServedWithItsAge() {
        guard case .serve(_, let age) = decide(["Cache-Control": "max-age=60"], now: t0 + 30) else {
            return XCTFail("not served")
        }
        XCTAssertEqual(age, 30)
    }

    func testAStaleResponseWithAValidatorIsValidatedWithBothConditionalFields() {
        let decision = decide(["Cache-Control": "max-age=60", "ETag": "\"v1\"", "Last-Modified": httpDate(t0)], now: t0 + 61)
        guard case .validate(_, let conditional) = decision else { return XCTFail("not validated: \(decision)") }
        XCTAssertEqual(conditional.value(forHTTPHeaderField: "If-None-Match"), "\"v1\"")
        XCTAssertEqual(conditional.value(forHTTPHeaderField: "If-Modified-Since"), httpDate(t0))
    }

    func testAStaleResponseWithoutAValidatorIsFetchedAgain() {
        guard case .network(let replacing) = decide(["Cache-Control": "max-age=60"], now: t0 + 61) else {
            return XCTFail("not fetched")
        }
        XCTAssertNotNil(replacing)
    }

    func testRequestMaxAgeMaxStaleAndMinFreshChooseWhatIsAcceptable() {
        let headers: HTTPHeaders = ["Cache-Control": "max-age=60", "ETag": "\"v1\""]
        func served(_ requestCacheControl: String, at now: Double) -> Bool {
            if case .serve = decide(headers, request: ["Cache-Control": requestCacheControl], now: now) { return true }
            return false
        }
        XCTAssertTrue(served("max-age=40", at: t0 + 30))
        XCTAssertFalse(served("max-age=20", at: t0 + 30))
        XCTAssertTrue(served("max-stale=10", at: t0 + 65))
        XCTAssertFalse(served("max-stale=10", at: t0 + 75))
        XCTAssertTrue(served("max-stale", at: t0 + 10_000))
        XCTAssertTrue(served("min-fresh=20", at: t0 + 30))
        XCTAssertFalse(served("min-fresh=40", at: t0 + 30))
    }

    func testMustRevalidateIsNeverServedStale() {
        let decision = decide(["Cache-Control": "max-age=60, must-revalidate", "ETag": "\"v1\""],
                              request: ["Cache-Control": "max-stale"], now: t0 + 61)
        guard case .validate = decision else { return XCTFail("served stale: \(decision)") }
    }

    func testOnlyIfCachedNeverGoesToTheNetwork() {
        let request: HTTPHeaders = ["Cache-Control": "only-if-cached"]
        guard case .unsatisfiable = decide(["Cache-Control": "max-age=60", "ETag": "\"v\""], request: request, now: t0 + 61)
        else { return XCTFail("stale with only-if-cached") }
        let nothing = CachePolicy.decide(RawRequest(url: url, headers: request), directives: CacheDirectives(request, isRequest: true),
                                         stored: [], digester: digester, now: t0)
        guard case .unsatisfiable = nothing else { return XCTFail("nothing stored with only-if-cached") }
    }

    func testOnlyAVariantWhoseVariedFieldsMatchIsSelected() {
        let english = RawRequest(url: url, headers: ["Accept-Language": "en"])
        let candidate = stored(["Cache-Control": "max-age=60", "Vary": "Accept-Language"], vary: ["accept-language"],
                               request: english)
        func decision(_ headers: HTTPHeaders) -> CachePolicy.Decision {
            CachePolicy.decide(RawRequest(url: url, headers: headers), directives: CacheDirectives(), stored: [candidate],
                               digester: digester, now: t0)
        }
        guard case .serve = decision(["accept-language": "en"]) else { return XCTFail("same value not served") }
        guard case .network(.none) = decision(["Accept-Language": "fr"]) else { return XCTFail("other value served") }
        guard case .network(.none) = decision([:]) else { return XCTFail("absent field served") }
    }

    // MARK: 304 (§4.3.4) and invalidation (§4.4)

    func testA304ReplacesStoredFieldsButNotTheFraming() {
        let old = stored(["Content-Length": "6", "Cache-Control": "max-age=1", "X-A": "old", "Age": "40", "ETag": "\"v\""])
        let updated = CachePolicy.freshened(old, with: ["Cache-Control": "max-age=60", "X-A": "new", "Content-Length": "0",
                                                       "ETag": "\"v\""], requestTime: t0 + 100, responseTime: t0 + 101)
        XCTAssertEqual(updated.headers["Content-Length"], "6")
        XCTAssertEqual(updated.headers["Cache-Control"], "max-age=60")
        XCTAssertEqual(updated.headers["X-A"], "new")
        XCTAssertNil(updated.headers["Age"])
        XCTAssertEqual(updated.body, old.body)
        XCTAssertEqual(updated.responseTime, t0 + 101)
    }

    func testA304ForAnotherEntityTagDoesNotRefreshTheStoredResponse() {
        let old = stored(["ETag": "W/\"v1\""])
        XCTAssertTrue(CachePolicy.notModified(["ETag": "\"v1\""], refersTo: old))
        XCTAssertTrue(CachePolicy.notModified([:], refersTo: old))
        XCTAssertFalse(CachePolicy.notModified(["ETag": "\"v2\""], refersTo: old))
        XCTAssertFalse(CachePolicy.notModified(["ETag": "\"v1\""], refersTo: stored(["Last-Modified": httpDate(t0)])))
    }

    func testUnsafeMethodsInvalidateTheirURLAndSameOriginLocations() {
        let post = RawRequest(method: .post, url: url)
        let response = RawResponse(request: post, statusCode: .created,
                                   headers: ["Location": "/items/7#top", "Content-Location": "http://other.test/items/7"])
        XCTAssertEqual(CachePolicy.invalidatedURLs(by: post, response: response),
                       ["http://api.test/items?page=1", "http://api.test/items/7"])
        let failed = RawResponse(request: post, statusCode: .internalServerError)
        XCTAssertEqual(CachePolicy.invalidatedURLs(by: post, response: failed), [])
        let get = RawRequest(url: url)
        XCTAssertEqual(CachePolicy.invalidatedURLs(by: get, response: RawResponse(request: get, statusCode: .ok)), [])
    }
}
