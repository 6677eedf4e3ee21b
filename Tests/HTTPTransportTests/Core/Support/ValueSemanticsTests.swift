import Foundation
import HTTPTransport
import XCTest

/// `RawRequest`, `RawResponse` and `HTTPTransportError` keep their fields behind one shared
/// reference (copy-on-write): a copy changed anywhere must leave the original as it was.
final class ValueSemanticsTests: XCTestCase {
    private let url = URL(fileURLWithPath: "/")

    func testChangingACopiedRequestLeavesTheOriginal() throws {
        let original = RawRequest(method: .get, url: try XCTUnwrap(URL(string: "https://a.example/x")),
                                  headers: ["A": "1"], body: .data(Data("one".utf8)), timeout: 5)
        var copy = original
        copy.method = .post
        copy.url = try XCTUnwrap(URL(string: "https://b.example/y"))
        copy.headers.add("B", "2")
        copy.setValue("3", forHTTPHeaderField: "A")
        copy.httpBody = Data("two".utf8)
        copy.timeout = 9
        copy.download = Download(destination: url)
        copy.redirectedFrom = url
        copy.requestID = "id"

        XCTAssertEqual(original.method, .get)
        XCTAssertEqual(original.url.absoluteString, "https://a.example/x")
        XCTAssertEqual(Array(original.headers), [HTTPHeaders.Field(name: "A", value: "1")])
        XCTAssertEqual(original.httpBody, Data("one".utf8))
        XCTAssertEqual(original.timeout, 5)
        XCTAssertNil(original.download)
        XCTAssertNil(original.redirectedFrom)
        XCTAssertNil(original.requestID)
        XCTAssertEqual(copy.value(forHTTPHeaderField: "A"), "3")
        XCTAssertEqual(copy.value(forHTTPHeaderField: "B"), "2")
    }

    func testChangingACopiedResponseLeavesTheOriginal() {
        let original = RawResponse(request: RawRequest(url: url), statusCode: .ok, headers: ["X": "1"],
                                   data: Data("a".utf8))
        var copy = original
        copy.statusCode = .notFound
        copy.headers.add("Y", "2")
        copy.data = nil
        copy.error = HTTPTransportError(code: .other, message: "changed")
        copy.metrics.redirectCount = 3
        copy.request.requestID = "r"
        copy.fileURL = url

        XCTAssertEqual(original.statusCode, .ok)
        XCTAssertEqual(original.headers.count, 1)
        XCTAssertEqual(original.data, Data("a".utf8))
        XCTAssertNil(original.error)
        XCTAssertEqual(original.metrics.redirectCount, 0)
        XCTAssertNil(original.request.requestID)
        XCTAssertNil(original.fileURL)
    }

    func testChangingACopiedErrorLeavesTheOriginal() {
        let original = HTTPTransportError(code: .timeout, message: "first", url: "http://a/")
        var copy = original
        copy.code = .other
        copy.message = "second"
        copy.url = "http://b/"
        copy.responseBodyErrorCode = "E1"
        XCTAssertEqual(original.code, .timeout)
        XCTAssertEqual(original.message, "first")
        XCTAssertEqual(original.url, "http://a/")
        XCTAssertNil(original.responseBodyErrorCode)
    }
}
