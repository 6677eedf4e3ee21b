import Foundation
@testable import HTTPTransport
import XCTest

/// A wire request resolved from an endpoint the session parsed carries the URL's text
/// (`RawRequest.urlText`), which the engine hands libcurl instead of making it again; any change
/// of `url` forgets it, so what goes on the wire is always the URL as the interceptors left it.
final class ResolvedURLTextTests: XCTestCase {
    func testAChangedURLIsTheOneSentNotTheTextKeptFromResolving() throws {
        let rewrite = ClosureRequestInterceptor { request in
            var request = request
            request.url = try XCTUnwrap(URL(string: request.url.absoluteString.replacingOccurrences(of: "/before", with: "/after")))
            return request
        }
        let transport = HTTPTransport(requestInterceptors: [rewrite])
        let request = HTTPRequest(endpoint: server.http + "/anything/before")
        for _ in 0..<2 {  // the second time, the endpoint comes from the session's parsed endpoints
            XCTAssertEqual(try echo(try sendOK(transport, request))["path"] as? String, "/anything/after")
        }
    }

    func testTheTextIsKeptOnlyWhileTheURLIsTheParsedOne() throws {
        let endpoints = ParsedEndpoints()
        let plain = try HTTPRequest(endpoint: server.http + "/a").wireRequest(endpoints: endpoints)
        XCTAssertEqual(plain.urlText, server.http + "/a")
        XCTAssertEqual(plain.urlString, plain.url.absoluteString)
        let again = try HTTPRequest(endpoint: server.http + "/a").wireRequest(endpoints: endpoints)
        XCTAssertEqual(again.urlText, server.http + "/a", "from the parsed endpoints")

        let queried = try HTTPRequest(endpoint: server.http + "/a").with(parameter: "q", value: "1", encoding: .url)
            .wireRequest(endpoints: endpoints)
        XCTAssertNil(queried.urlText, "a query was added: the URL is not the parsed one")
        XCTAssertEqual(queried.urlString, server.http + "/a?q=1")

        var changed = plain
        changed.url = try XCTUnwrap(URL(string: server.http + "/b"))
        XCTAssertNil(changed.urlText)
        XCTAssertEqual(changed.urlString, server.http + "/b")
        XCTAssertEqual(plain.urlString, server.http + "/a", "the copy changed, not the original")
    }

    func testAChangeOfTheURLThatThrowsHalfWayForgetsTheKeptText() throws {
        struct Stopped: Error {}
        var request = try HTTPRequest(endpoint: server.http + "/a").wireRequest(endpoints: ParsedEndpoints())
        XCTAssertNotNil(request.urlText)
        let other = try XCTUnwrap(URL(string: server.http + "/other"))
        func rewrite(_ url: inout URL) throws {
            url = other
            throw Stopped()
        }
        XCTAssertThrowsError(try rewrite(&request.url))
        XCTAssertEqual(request.url, other)
        XCTAssertEqual(request.urlString, server.http + "/other", "the engine sends the URL the request has")
    }
}
