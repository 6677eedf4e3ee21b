import Foundation
import HTTPTransport
import XCTest

/// Any method token goes on the wire as written, text that is not a token is refused before
/// anything is sent, and repeated request header fields keep their order.
final class MethodAndHeaderFieldTests: XCTestCase {
    let transport = HTTPTransport()

    func testAnyMethodTokenIsSentAsWritten() throws {
        for token in ["PURGE", "PROPFIND", "M-SEARCH", "Custom"] {
            let method = try XCTUnwrap(HTTPRequest.HTTPMethod(rawValue: token))
            let response = try sendOK(transport, HTTPRequest(httpMethod: method, endpoint: server.http + "/anything"))
            XCTAssertEqual(try echo(response)["method"] as? String, token)
        }
    }

    func testTextThatIsNotAMethodTokenIsNoMethod() {
        for text in ["", "GET /x HTTP/1.1\r\nX-Injected: 1", "TWO WORDS", "LINE\n", "ÜBER"] {
            XCTAssertNil(HTTPRequest.HTTPMethod(rawValue: text), text)
        }
    }

    func testTheKnownMethodsAreTheirOwnCases() {
        XCTAssertEqual(HTTPRequest.HTTPMethod(rawValue: "GET"), .get)
        XCTAssertEqual(HTTPRequest.HTTPMethod.allCases.map(\.rawValue),
                       ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT"])
        XCTAssertNotEqual(HTTPRequest.HTTPMethod(rawValue: "get"), .get, "methods are case-sensitive")
    }

    func testAMethodRFC9110DoesNotDefineIsNotIdempotent() throws {
        XCTAssertTrue(HTTPRequest.HTTPMethod.put.isIdempotent)
        XCTAssertFalse(HTTPRequest.HTTPMethod.post.isIdempotent)
        XCTAssertFalse(try XCTUnwrap(HTTPRequest.HTTPMethod(rawValue: "PURGE")).isIdempotent)
    }

    func testRepeatedHeaderFieldsAreSentInOrderAfterTheHeaders() throws {
        let request = HTTPRequest(endpoint: server.http + "/anything", headers: ["X-First": "0"])
            .adding(header: "X-Repeated", value: "one")
            .adding(header: "X-Other", value: "between")
            .adding(header: "X-Repeated", value: "two")
        let pairs = try XCTUnwrap(try echo(try sendOK(transport, request))["headers"] as? [[String]])
        let sent = pairs.filter { $0.first?.hasPrefix("X-") == true }
        XCTAssertEqual(sent, [["X-First", "0"], ["X-Repeated", "one"], ["X-Other", "between"], ["X-Repeated", "two"]])
    }

    func testARequestBuiltOnABaseStartsWithTheBasesFields() throws {
        let base = HTTPRequest(endpoint: server.http).adding(header: "X-Trace", value: "base")
        let request = HTTPRequest(endpoint: "/anything", base: base).adding(header: "X-Trace", value: "own")
        XCTAssertEqual(request.headerFields.values("x-trace"), ["base", "own"])
        let pairs = try XCTUnwrap(try echo(try sendOK(transport, request))["headers"] as? [[String]])
        XCTAssertEqual(pairs.filter { $0.first == "X-Trace" }.map { $0[1] }, ["base", "own"])
        XCTAssertTrue(base.headerFields.values("x-trace") == ["base"], "the base is not changed")
    }

    func testAFieldWithALineBreakIsRefusedBeforeAnythingIsSent() throws {
        let request = HTTPRequest(endpoint: server.http + "/anything").adding(header: "X-Bad", value: "a\r\nX-Injected: 1")
        XCTAssertEqual(transport.send(request: request).error?.code, .encodingFailed)
    }
}
