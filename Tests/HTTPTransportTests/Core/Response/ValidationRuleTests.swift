import Foundation
import HTTPTransport
import XCTest

/// Default validation, through `StubEngine` (no server): 2xx succeeds, anything else is an
/// `.httpStatus` failure carrying the response, and a response without a status is malformed.
final class ValidationRuleTests: XCTestCase {
    private let url = "http://api.stub.test/resource"

    private func answering(_ status: Int?, body: String = #"{"code":"E1","message":"nope"}"#) -> RecordingStub {
        RecordingStub { request in
            RawResponse(request: request, statusCode: status.map(HTTPStatusCode.init(rawValue:)),
                        headers: ["X-Trace": "t-1", "Content-Type": "application/json"], data: Data(body.utf8))
        }
    }

    func testEvery2xxStatusIsASuccess() throws {
        for status in [200, 201, 204, 206, 299] {
            let result = answering(status).transport().send(request: HTTPRequest(endpoint: url))
            XCTAssertEqual(result.value?.httpStatus.rawValue, status, "\(String(describing: result.error))")
        }
    }

    func testNon2xxStatusesFailWithTheStatusHeadersAndBody() throws {
        for status in [404, 500, 304, 199, 300] {
            let error = try XCTUnwrap(answering(status).transport().send(request: HTTPRequest(endpoint: url)).error, "\(status)")
            XCTAssertEqual(error.code, .httpStatus, "\(status)")
            XCTAssertEqual(error.httpStatusCode?.rawValue, status)
            XCTAssertEqual(error.responseHeaders["X-Trace"], "t-1")
            XCTAssertEqual(error.responseBodyString, #"{"code":"E1","message":"nope"}"#)
            XCTAssertEqual(error.url, url)
        }
    }

    func testWithoutDefaultValidationNon2xxResponsesAreReturned() throws {
        for status in [404, 500] {
            let response = try XCTUnwrap(answering(status).transport(useDefaultValidation: false)
                .send(request: HTTPRequest(endpoint: url)).value, "\(status)")
            XCTAssertEqual(response.httpStatus.rawValue, status)
            XCTAssertEqual(response.header(named: "x-trace"), "t-1")
            XCTAssertEqual(response.getString(), #"{"code":"E1","message":"nope"}"#)
        }
    }

    func testAResponseWithoutAStatusIsABadResponse() throws {
        for validation in [true, false] {
            let result = answering(nil).transport(useDefaultValidation: validation).send(request: HTTPRequest(endpoint: url))
            XCTAssertEqual(result.error?.code, .badResponse, "validation \(validation)")
            XCTAssertEqual(result.error?.url, url)
        }
    }

    func testAnEngineFailurePassesThroughValidationUnchanged() throws {
        let stub = RecordingStub { request in
            RawResponse(request: request, error: HTTPTransportError(code: .timeout, message: "slow"))
        }
        let error = try XCTUnwrap(stub.transport().send(request: HTTPRequest(endpoint: url)).error)
        XCTAssertEqual(error.code, .timeout)
        XCTAssertEqual(error.url, url, "the request URL is filled in")
    }
}
