import Foundation
import HTTPTransport
import XCTest

/// `ClarifyErrorInterceptor` reads an API's error body into the error, through `StubEngine`
/// (no server) and directly.
final class ClarifyErrorInterceptorTests: XCTestCase {
    private let url = "http://api.stub.test/thing"

    /// The failure of a send answered with `status` and `body`, through `interceptor`.
    private func failure(_ body: String, status: HTTPStatusCode = .badRequest,
                         interceptor: ClarifyErrorInterceptor = ClarifyErrorInterceptor()) throws -> HTTPTransportError {
        let stub = RecordingStub { RawResponse(request: $0, statusCode: status, data: Data(body.utf8)) }
        return try XCTUnwrap(stub.transport(responseInterceptors: [interceptor]).send(request: HTTPRequest(endpoint: url)).error)
    }

    func testCodeAndMessageAtTheTopLevelAreRead() throws {
        let error = try failure(#"{"code": "E42", "message": "The widget is broken"}"#)
        XCTAssertEqual(error.code, .httpStatus)
        XCTAssertEqual(error.responseBodyErrorCode, "E42")
        XCTAssertEqual(error.responseBodyErrorMessage, "The widget is broken")
        XCTAssertTrue(error.message.hasSuffix(" The server says: The widget is broken"), error.message)
    }

    func testAlternativeKeysAndNumbersOneLevelDownAreRead() throws {
        let error = try failure(#"  {"error": {"error_code": 7, "error_message": "nested"}, "other": 1}"#)
        XCTAssertEqual(error.responseBodyErrorCode, "7")
        XCTAssertEqual(error.responseBodyErrorMessage, "nested")
    }

    func testCustomKeysReplaceTheDefaults() throws {
        let custom = ClarifyErrorInterceptor(errorCodeKeys: ["errno"], errorMessageKeys: ["detail"])
        let error = try failure(#"{"errno": "X1", "detail": "custom", "code": "ignored", "message": "ignored"}"#, interceptor: custom)
        XCTAssertEqual(error.responseBodyErrorCode, "X1")
        XCTAssertEqual(error.responseBodyErrorMessage, "custom")
        let defaultsOnly = try failure(#"{"code": "C", "message": "m"}"#, interceptor: custom)
        XCTAssertNil(defaultsOnly.responseBodyErrorCode)
        XCTAssertNil(defaultsOnly.responseBodyErrorMessage)
    }

    func testBodiesThatAreNotAJSONObjectLeaveTheErrorAlone() throws {
        let plain = try XCTUnwrap(RecordingStub { RawResponse(request: $0, statusCode: .badRequest, data: Data("x".utf8)) }
            .transport(responseInterceptors: []).send(request: HTTPRequest(endpoint: url)).error)
        for body in ["code: E1, message: nope", #"["code", "message"]"#, #"{"code": "#, "", #"{"unrelated": true}"#] {
            let error = try failure(body)
            XCTAssertNil(error.responseBodyErrorCode, body)
            XCTAssertNil(error.responseBodyErrorMessage, body)
            XCTAssertEqual(error.message, plain.message, body)
            XCTAssertEqual(error.responseBodyString, body)
        }
    }

    func testSuccessesAreLeftAloneAndNeverHandedToIt() throws {
        XCTAssertFalse(ClarifyErrorInterceptor().interceptsSuccesses)
        let body = Data(#"{"code": "E1", "message": "looks like an error"}"#.utf8)
        let success = RawResponse(request: RawRequest(url: try XCTUnwrap(URL(string: url))), statusCode: .ok, data: body)
        let unchanged = ClarifyErrorInterceptor().intercept(response: success)
        XCTAssertNil(unchanged.error)
        XCTAssertEqual(unchanged.data, body)

        let stub = RecordingStub { RawResponse(request: $0, statusCode: .ok, data: body) }
        let response = try stub.transport().send(request: HTTPRequest(endpoint: url)).get()
        XCTAssertEqual(response.body, body)
    }
}
