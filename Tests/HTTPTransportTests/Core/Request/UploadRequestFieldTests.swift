import Foundation
import HTTPTransport
import XCTest

/// The two upload request types keep every field a request has by the base-request rules of
/// `HTTPRequest`, and their fields read and write like `HTTPRequest`'s (no server: the
/// requests are only resolved).
final class UploadRequestFieldTests: XCTestCase {
    private let base = HTTPRequest(endpoint: "http://127.0.0.1:9/api", headers: ["X-Base": "b", "X-Both": "base"],
                                   parameters: [HTTPRequestParameters(parameters: ["from": "base"], encoding: .url)],
                                   requestInterceptors: [UploadRequestFieldTests.stamp("base")], timeout: 7)
    private let part = FileMultipart(data: Data("x".utf8), partName: "file", fileName: "x.txt", mimeType: "text/plain")

    private static func stamp(_ name: String) -> ClosureRequestInterceptor {
        ClosureRequestInterceptor { request in
            var request = request
            request.addValue(name, forHTTPHeaderField: "X-Stamp")
            return request
        }
    }

    private func assertBuiltOnBase(_ request: some HTTPRequestEnvelope, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(request.httpMethod, .post, file: file, line: line)
        XCTAssertEqual(request.endpoint, "http://127.0.0.1:9/api/items", file: file, line: line)
        XCTAssertEqual(request.headers, ["X-Base": "b", "X-Both": "own"], file: file, line: line)
        XCTAssertEqual(request.parameters.count, 2, file: file, line: line)
        XCTAssertEqual(request.timeout, 7, file: file, line: line)
        XCTAssertEqual(try request.resolve().url.query, "from=base&own=1", file: file, line: line)
    }

    func testADataUploadBuiltOnABaseTakesItsFieldsByTheBaseRules() throws {
        try assertBuiltOnBase(DataUploadHTTPRequest(endpoint: "items", headers: ["X-Both": "own"],
                                                    parameters: [HTTPRequestParameters(parameters: ["own": 1], encoding: .url)],
                                                    data: Data("d".utf8), base: base))
    }

    func testAFileUploadBuiltOnABaseTakesItsFieldsByTheBaseRules() throws {
        try assertBuiltOnBase(FileUploadHTTPRequest(endpoint: "items", headers: ["X-Both": "own"],
                                                    parameters: [HTTPRequestParameters(parameters: ["own": 1], encoding: .url)],
                                                    fileMultipart: part, base: base))
    }

    func testAnUploadsFieldsAreWritableAndReachTheWireForm() throws {
        var upload = DataUploadHTTPRequest(endpoint: "http://127.0.0.1:9/a", data: Data("d".utf8))
        upload.httpMethod = .put
        upload.endpoint = "http://127.0.0.1:9/b"
        upload.headers["X-Set"] = "1"
        upload.parameters.append(HTTPRequestParameters(parameters: ["q": 1], encoding: .url))
        upload.timeout = 3
        upload.data = Data("e".utf8)
        let raw = try upload.resolve()
        XCTAssertEqual(raw.method, .put)
        XCTAssertEqual(raw.url.absoluteString, "http://127.0.0.1:9/b?q=1")
        XCTAssertEqual(raw.value(forHTTPHeaderField: "X-Set"), "1")
        XCTAssertEqual(raw.timeout, 3)
        XCTAssertEqual(raw.httpBody, Data("e".utf8))
    }

    func testAnUploadsOwnInterceptorsGoBeforeItsBasesEvenWhenAddedLater() throws {
        for upload in [
            DataUploadHTTPRequest(endpoint: "x", data: Data(), base: base).with(interceptors: [Self.stamp("own")]),
            FileUploadHTTPRequest(endpoint: "x", fileMultipart: part, base: base).with(interceptors: [Self.stamp("own")]),
        ] as [any HTTPRequestEnvelope] {
            var raw = try upload.resolve()
            for interceptor in upload.requestInterceptors { raw = try interceptor.intercept(request: raw) }
            XCTAssertEqual(raw.headers.values("X-Stamp"), ["own", "base"])
        }
    }

    func testACookieProblemNotedByABuilderFailsTheUploadsResolution() {
        let upload = FileUploadHTTPRequest(endpoint: "http://127.0.0.1:9/a", fileMultipart: part)
            .with(cookieName: "bad;name", value: "v")
        XCTAssertThrowsError(try upload.resolve()) { error in
            XCTAssertEqual((error as? HTTPTransportError)?.code, .encodingFailed)
        }
    }
}
