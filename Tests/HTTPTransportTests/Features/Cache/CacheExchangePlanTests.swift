import Foundation
@testable import HTTPTransport
import XCTest

/// The cache's exchange as a machine, stepped by hand: `HTTPCache.plan` says answer or ask the
/// network (with which request), `CacheCompletion.finish` takes the network's response and says
/// answer or ask once more. A clock the test moves gives exact ages; no engine, no server.
final class CacheExchangePlanTests: XCTestCase {
    private let now = Protected<Double>(1_800_000_000)
    private let session = Session(configuration: Session.Configuration(), engine: StubEngine { request in
        RawResponse(request: request, error: HTTPTransportError(code: .other, message: "the engine is not used here"))
    })
    private lazy var cache = HTTPCache(directory: nil, maxBytes: 1 << 20, clock: { [now] in now.value })

    private func get(_ headers: HTTPHeaders = [:]) throws -> RawRequest {
        RawRequest(url: try XCTUnwrap(URL(string: "http://api.test/doc")), headers: headers)
    }

    private func response(_ request: RawRequest, _ status: HTTPStatusCode = .ok, _ headers: HTTPHeaders,
                          _ body: String = "") -> RawResponse {
        RawResponse(request: request, statusCode: status, headers: headers, data: Data(body.utf8))
    }

    /// The plan's answer, or a failure when it asks the network.
    private func answered(_ plan: CacheExchangePlan, file: StaticString = #filePath, line: UInt = #line) -> RawResponse? {
        guard case .answered(let response) = plan else {
            XCTFail("the network was asked", file: file, line: line)
            return nil
        }
        return response
    }

    /// The request the plan sends and its completion, or a failure when it answers.
    private func network(_ plan: CacheExchangePlan, file: StaticString = #filePath,
                         line: UInt = #line) -> (RawRequest, CacheCompletion)? {
        guard case .network(let request, let completion) = plan else {
            XCTFail("answered without the network", file: file, line: line)
            return nil
        }
        return (request, completion)
    }

    /// Stores `headers` and `body` for the document: a miss, then the network's answer.
    private func store(_ headers: HTTPHeaders, _ body: String = "one") throws {
        let (sent, completion) = try XCTUnwrap(network(cache.plan(try get(), for: session)))
        XCTAssertEqual(answered(completion.finish(response(sent, .ok, headers, body)))?.metrics.cacheStatus, .miss)
    }

    func testAMissAsksTheNetworkWithTheRequestAsItIsAndStoresTheAnswer() throws {
        let (sent, completion) = try XCTUnwrap(network(cache.plan(try get(["Accept": "text/plain"]), for: session)))
        XCTAssertEqual(sent.headers["Accept"], "text/plain")
        XCTAssertNil(sent.headers["If-None-Match"])
        guard case .store = completion.step else { return XCTFail("a miss stores what comes back") }
        let answer = try XCTUnwrap(answered(completion.finish(response(sent, .ok, ["Cache-Control": "max-age=60"], "one"))))
        XCTAssertEqual(answer.metrics.cacheStatus, .miss)
        XCTAssertEqual(answer.data, Data("one".utf8))
        XCTAssertEqual(answered(cache.plan(try get(), for: session))?.metrics.cacheStatus, .hit)
    }

    func testAHitsAgeIsTheResidentTimeWholeSecondsAndItGoesStaleAtItsLifetime() throws {
        try store(["Cache-Control": "max-age=60"])
        XCTAssertEqual(answered(cache.plan(try get(), for: session))?.headers["Age"], "0")
        now.value += 25.5
        XCTAssertEqual(answered(cache.plan(try get(), for: session))?.headers["Age"], "25")
        now.value += 34
        XCTAssertEqual(answered(cache.plan(try get(), for: session))?.headers["Age"], "59")
        now.value += 0.5
        let (sent, _) = try XCTUnwrap(network(cache.plan(try get(), for: session)), "60 s old: stale, no validator")
        XCTAssertNil(sent.headers["If-None-Match"])
        XCTAssertNil(sent.headers["If-Modified-Since"])
    }

    func testAnAgeFieldAndTheResponseDelayCountInTheAge() throws {
        let (sent, completion) = try XCTUnwrap(network(cache.plan(try get(), for: session)))
        now.value += 2  // the response took 2 s to come
        _ = completion.finish(response(sent, .ok, ["Cache-Control": "max-age=60", "Age": "10"]))
        now.value += 5
        XCTAssertEqual(answered(cache.plan(try get(), for: session))?.headers["Age"], "17", "10 + 2 + 5")
    }

    func testAStaleEntryAsksWithBothValidatorsAndA304MergesIntoTheStoredResponse() throws {
        try store(["Cache-Control": "max-age=10", "ETag": "\"v1\"", "Last-Modified": "Thu, 01 Jan 2026 00:00:00 GMT",
                   "Content-Type": "text/plain", "X-Version": "old"])
        now.value += 11
        let (conditional, completion) = try XCTUnwrap(network(cache.plan(try get(), for: session)))
        XCTAssertEqual(conditional.headers["If-None-Match"], "\"v1\"")
        XCTAssertEqual(conditional.headers["If-Modified-Since"], "Thu, 01 Jan 2026 00:00:00 GMT")
        guard case .revalidation = completion.step else { return XCTFail("a stale entry with validators is revalidated") }
        let answer = try XCTUnwrap(answered(completion.finish(response(conditional, .notModified, [
            "Cache-Control": "max-age=100", "ETag": "\"v1\"", "X-Version": "new"]))))
        XCTAssertEqual(answer.statusCode, .ok, "the stored response, refreshed")
        XCTAssertEqual(answer.metrics.cacheStatus, .revalidated)
        XCTAssertEqual(answer.data, Data("one".utf8))
        XCTAssertEqual(answer.headers["X-Version"], "new")
        XCTAssertEqual(answer.headers["Content-Type"], "text/plain")
        XCTAssertEqual(answer.headers["Cache-Control"], "max-age=100")
        now.value += 99
        XCTAssertEqual(answered(cache.plan(try get(), for: session))?.headers["Age"], "99", "its age starts at the 304")
    }

    func testA304ThatForbidsStoringServesTheStoredBodyOnceAndRemovesIt() throws {
        try store(["Cache-Control": "max-age=0", "ETag": "\"v1\""])
        let (conditional, completion) = try XCTUnwrap(network(cache.plan(try get(), for: session)))
        let answer = try XCTUnwrap(answered(completion.finish(response(conditional, .notModified,
                                                                       ["Cache-Control": "no-store", "ETag": "\"v1\""]))))
        XCTAssertEqual(answer.data, Data("one".utf8))
        XCTAssertEqual(answer.metrics.cacheStatus, .revalidated)
        let (sent, _) = try XCTUnwrap(network(cache.plan(try get(), for: session)))
        XCTAssertNil(sent.headers["If-None-Match"], "nothing stored any more")
    }

    func testA304AboutAnotherRepresentationIsTheOneCompletionThatAsksAgain() throws {
        try store(["Cache-Control": "max-age=0", "ETag": "\"v1\""])
        let (conditional, completion) = try XCTUnwrap(network(cache.plan(try get(), for: session)))
        let (plain, second) = try XCTUnwrap(network(completion.finish(response(conditional, .notModified, ["ETag": "\"v2\""]))))
        XCTAssertNil(plain.headers["If-None-Match"])
        guard case .store(_, replacing: let replacing, requestTime: _) = second.step else { return XCTFail("the plain answer is stored") }
        XCTAssertNil(replacing, "the outdated entry is already gone")
        let answer = try XCTUnwrap(answered(second.finish(response(plain, .ok, ["Cache-Control": "max-age=60"], "two"))))
        XCTAssertEqual(answer.data, Data("two".utf8))
        XCTAssertEqual(answered(cache.plan(try get(), for: session))?.data, Data("two".utf8))
    }

    func testAServerErrorToAPlainRefetchKeepsTheStaleEntryAndAClientErrorRemovesIt() throws {
        try store(["Cache-Control": "max-age=10"])
        now.value += 20
        let (sent, completion) = try XCTUnwrap(network(cache.plan(try get(), for: session)))
        XCTAssertEqual(answered(completion.finish(response(sent, .serviceUnavailable, [:])))?.statusCode, .serviceUnavailable)
        let stale = try get(["Cache-Control": "max-stale"])
        XCTAssertEqual(answered(cache.plan(stale, for: session))?.data, Data("one".utf8), "still stored")
        let (again, refetch) = try XCTUnwrap(network(cache.plan(try get(), for: session)))
        _ = refetch.finish(response(again, .notFound, ["Cache-Control": "no-store"]))
        _ = try XCTUnwrap(network(cache.plan(stale, for: session)), "a 404 that may not be stored removed it")
    }

    func testARequestWithNoStoreAsksTheNetworkAndKeepsNothing() throws {
        let noStore = try get(["Cache-Control": "no-store"])
        let (sent, completion) = try XCTUnwrap(network(cache.plan(noStore, for: session)))
        _ = completion.finish(response(sent, .ok, ["Cache-Control": "max-age=60"]))
        _ = try XCTUnwrap(network(cache.plan(try get(), for: session)))
    }

    func testAVariantIsServedOnlyToARequestWithTheSameVariedFields() throws {
        let english = try get(["Accept-Language": "en"])
        let (sent, completion) = try XCTUnwrap(network(cache.plan(english, for: session)))
        _ = completion.finish(response(sent, .ok, ["Cache-Control": "max-age=60", "Vary": "Accept-Language"], "hello"))
        XCTAssertEqual(answered(cache.plan(english, for: session))?.data, Data("hello".utf8))
        let (french, frenchCompletion) = try XCTUnwrap(network(cache.plan(try get(["Accept-Language": "fr"]), for: session)))
        _ = frenchCompletion.finish(response(french, .ok, ["Cache-Control": "max-age=60", "Vary": "Accept-Language"], "bonjour"))
        XCTAssertEqual(answered(cache.plan(try get(["Accept-Language": "fr"]), for: session))?.data, Data("bonjour".utf8))
        XCTAssertEqual(answered(cache.plan(english, for: session))?.data, Data("hello".utf8), "both variants kept")
    }
}
