import Foundation
@testable import HTTPTransport
import XCTest

/// A request carrying its own `If-None-Match`, `If-Modified-Since` or `Range` is answered from a
/// fresh stored response when the cache can (304, 206, 416), and otherwise sent as it is.
final class CacheOwnValidationTests: XCTestCase {
    private let url = "http://api.test/doc"
    private let lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"

    /// A transport with a memory cache whose engine answers `abcdefgh` with `headers`, recording
    /// what reaches it; default validation off, so 304 and 416 are results.
    private func transport(_ headers: HTTPHeaders) -> (HTTPTransport, Recorder<RawRequest>) {
        var configuration = Session.Configuration()
        configuration.cache = HTTPCache()
        let seen = Recorder<RawRequest>()
        let engine = StubEngine { request in
            seen.add(request)
            return RawResponse(request: request, statusCode: .ok, headers: headers, data: Data("abcdefgh".utf8))
        }
        return (HTTPTransport(session: Session(configuration: configuration, engine: engine), useDefaultValidation: false), seen)
    }

    private var fresh: HTTPHeaders {
        ["Cache-Control": "max-age=600", "ETag": "\"v1\"", "Last-Modified": lastModified, "Content-Type": "text/plain"]
    }

    /// Stores the response, then sends it again with `header: value`.
    private func send(_ header: String, _ value: String, headers: HTTPHeaders? = nil,
                      also: [String: String] = [:]) throws -> (HTTPResponse, Recorder<RawRequest>) {
        let (transport, seen) = transport(headers ?? fresh)
        _ = try transport.send(request: HTTPRequest(endpoint: url)).get()
        var request = HTTPRequest(endpoint: url).with(header: header, value: value)
        for (name, value) in also { request = request.with(header: name, value: value) }
        return (try transport.send(request: request).get(), seen)
    }

    // MARK: Conditional requests (RFC 9111 §4.3.2)

    func testAMatchingIfNoneMatchIsAnsweredNotModifiedFromTheCache() throws {
        for tags in ["\"v1\"", "W/\"v1\"", "\"other\", \"v1\"", "*", "\"a,b\" , W/\"v1\""] {
            let (response, seen) = try send("If-None-Match", tags)
            XCTAssertEqual(response.httpStatus, .notModified, tags)
            XCTAssertEqual(response.metrics.cacheStatus, .hit, tags)
            XCTAssertEqual(response.header(named: "ETag"), "\"v1\"", tags)
            XCTAssertNil(response.header(named: "Content-Type"), tags)
            XCTAssertTrue(response.body?.isEmpty ?? true, tags)
            XCTAssertEqual(seen.count, 1, tags)
        }
    }

    func testAnIfNoneMatchNamingAnotherTagGetsTheStoredResponse() throws {
        // If-None-Match decides alone: the matching If-Modified-Since does not count.
        let (response, seen) = try send("If-None-Match", "\"v0\"", also: ["If-Modified-Since": lastModified])
        XCTAssertEqual(response.httpStatus, .ok)
        XCTAssertEqual(response.getString(), "abcdefgh")
        XCTAssertEqual(response.metrics.cacheStatus, .hit)
        XCTAssertEqual(seen.count, 1)
    }

    func testIfModifiedSinceNotBeforeLastModifiedIsAnsweredNotModified() throws {
        for since in [lastModified, "Mon, 07 Nov 1994 00:00:00 GMT"] {
            let (response, seen) = try send("If-Modified-Since", since)
            XCTAssertEqual(response.httpStatus, .notModified, since)
            XCTAssertEqual(seen.count, 1, since)
        }
        for since in ["Sat, 05 Nov 1994 00:00:00 GMT", "yesterday"] {
            let (response, seen) = try send("If-Modified-Since", since)
            XCTAssertEqual(response.httpStatus, .ok, since)
            XCTAssertEqual(response.getString(), "abcdefgh", since)
            XCTAssertEqual(seen.count, 1, since)
        }
    }

    func testAConditionalRequestForAStaleResponseGoesToTheServerAsItIs() throws {
        let (response, seen) = try send("If-None-Match", "\"v1\"", headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\""])
        XCTAssertEqual(response.metrics.cacheStatus, .miss)
        XCTAssertEqual(seen.count, 2)
        XCTAssertEqual(seen.values.last?.value(forHTTPHeaderField: "If-None-Match"), "\"v1\"")
    }

    // MARK: Ranges (RFC 9110 §14)

    func testOneByteRangeOfAFreshResponseIsAnsweredPartialFromTheCache() throws {
        let cases = [("bytes=2-4", "cde", "bytes 2-4/8"), ("bytes=5-", "fgh", "bytes 5-7/8"), ("bytes=-3", "fgh", "bytes 5-7/8"),
                     ("bytes=6-100", "gh", "bytes 6-7/8"), ("Bytes = 0-0", "a", "bytes 0-0/8"), ("bytes=-20", "abcdefgh", "bytes 0-7/8")]
        for (range, body, contentRange) in cases {
            let (response, seen) = try send("Range", range)
            XCTAssertEqual(response.httpStatus, .partialContent, range)
            XCTAssertEqual(response.getString(), body, range)
            XCTAssertEqual(response.header(named: "Content-Range"), contentRange, range)
            XCTAssertEqual(response.header(named: "Content-Length"), String(body.count), range)
            XCTAssertEqual(response.metrics.cacheStatus, .hit, range)
            XCTAssertEqual(seen.count, 1, range)
        }
    }

    func testARangeStartingPastTheEndIsAnsweredRangeNotSatisfiable() throws {
        for range in ["bytes=8-", "bytes=100-200", "bytes=-0"] {
            let (response, seen) = try send("Range", range)
            XCTAssertEqual(response.httpStatus, .rangeNotSatisfiable, range)
            XCTAssertEqual(response.header(named: "Content-Range"), "bytes */8", range)
            XCTAssertEqual(seen.count, 1, range)
        }
    }

    func testRangesTheCacheCannotAnswerGoToTheServerAsTheyAre() throws {
        var encoded = fresh
        encoded["Content-Encoding"] = "gzip"
        let cases: [(String, String, HTTPHeaders?, [String: String])] = [
            ("several ranges", "bytes=0-1,3-4", nil, [:]), ("invalid", "bytes=5-2", nil, [:]), ("other unit", "items=0-1", nil, [:]),
            ("If-Range", "bytes=0-1", nil, ["If-Range": "\"v1\""]), ("content coding", "bytes=0-1", encoded, [:]),
            ("stale", "bytes=0-1", ["Cache-Control": "max-age=0"], [:]),
        ]
        for (name, range, headers, also) in cases {
            let (response, seen) = try send("Range", range, headers: headers, also: also)
            XCTAssertEqual(response.metrics.cacheStatus, .miss, name)
            XCTAssertEqual(seen.count, 2, name)
            XCTAssertEqual(seen.values.last?.value(forHTTPHeaderField: "Range"), range, name)
        }
    }

    func testAMatchingValidatorWinsOverARange() throws {
        let (response, _) = try send("Range", "bytes=0-1", also: ["If-None-Match": "\"v1\""])
        XCTAssertEqual(response.httpStatus, .notModified)
    }

    func testTheEntityTagsOfAnIfNoneMatchLine() {
        XCTAssertEqual(CachedAnswer.entityTags(#" "a", W/"b,c",junk, *"#), ["\"a\"", "W/\"b,c\"", "*"])
        XCTAssertEqual(CachedAnswer.entityTags(#""unterminated"#), [])
    }

    // MARK: On the wire

    func testTheTestServersResourceIsAnsweredFromTheCache() throws {
        let resource = CachedResource(["cc": "max-age=60", "etag": "1"])
        let transport = cachingTransport(HTTPCache(), useDefaultValidation: false)
        let first = try sendOK(transport, resource.request)
        let tag = try XCTUnwrap(first.header(named: "ETag"))
        let notModified = try sendOK(transport, resource.request.with(header: "If-None-Match", value: tag))
        XCTAssertEqual(notModified.httpStatus, .notModified)
        let partial = try sendOK(transport, resource.request.with(header: "Range", value: "bytes=0-0"))
        XCTAssertEqual(partial.httpStatus, .partialContent)
        XCTAssertEqual(partial.getString(), "{")
        XCTAssertEqual(try resource.count(), 1)
    }
}
