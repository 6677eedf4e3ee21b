import Foundation
import HTTPTransport
import XCTest

/// Responses, status validation, errors and their accessors.
final class ResponseTests: XCTestCase {
    let transport = HTTPTransport()

    func testRepeatedHeadersKeepEveryValue() throws {
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/headers/multi"))
        XCTAssertEqual(response.headerValues(for: "set-cookie"), ["a=1; Path=/", "b=2; Path=/"])
        XCTAssertEqual(response.header(named: "x-multi"), "one, two")
        XCTAssertEqual(response.headers.first { $0.key.lowercased() == "x-multi" }?.value, "one, two")
    }

    func testNon2xxIsAnHTTPStatusFailureCarryingTheResponse() throws {
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/status/404?code=missing&message=No%20such%20user"))
        let error = try XCTUnwrap(result.error)
        XCTAssertEqual(error.code, .httpStatus)
        XCTAssertEqual(error.httpStatusCode, .notFound)
        XCTAssertEqual(error.responseBodyErrorCode, "missing")
        XCTAssertEqual(error.responseBodyErrorMessage, "No such user")
        XCTAssertEqual(error.responseBodyJSONDictionary?["code"] as? String, "missing")
        XCTAssertNotNil(error.responseBodyString)
        XCTAssertTrue(error.url?.hasSuffix("/status/404?code=missing&message=No%20such%20user") ?? false)
    }

    func testErrorBridgesToNSErrorWithTheSameAccessors() throws {
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/status/500?code=db&message=Database%20error"))
        let nsError = try XCTUnwrap(result.error) as NSError
        XCTAssertEqual(nsError.domain, HTTPTransportError.errorDomain)
        XCTAssertEqual(nsError.code, HTTPTransportError.Code.httpStatus.rawValue)
        XCTAssertEqual(nsError.httpStatusCode, .internalServerError)
        XCTAssertEqual(nsError.responseBodyErrorCode, "db")
        XCTAssertEqual(nsError.responseBodyErrorMessage, "Database error")
        XCTAssertEqual(nsError.responseBodyJSONDictionary?["message"] as? String, "Database error")
        XCTAssertNotNil(nsError.url)
    }

    func testWithoutDefaultValidationAnyResponseIsASuccess() throws {
        let lenient = HTTPTransport(useDefaultValidation: false)
        let response = try XCTUnwrap(lenient.send(request: HTTPRequest(endpoint: server.http + "/status/503")).value)
        XCTAssertEqual(response.httpStatus, .serviceUnavailable)
    }

    func testResponseInterceptorCanClearAndSetErrors() throws {
        let accept404 = ClosureResponseInterceptor { response in
            var response = response
            if response.statusCode == .notFound { response.error = nil }
            return response
        }
        let reject200 = ClosureResponseInterceptor { response in
            var response = response
            if response.statusCode == .ok {
                response.error = HTTPTransportError(code: .other, message: "domain rule")
            }
            return response
        }
        let transport = HTTPTransport(responseInterceptors: [accept404, reject200])
        XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: server.http + "/status/404")).value?.httpStatus, .notFound)
        XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: server.http + "/json")).error?.message, "domain rule")
    }

    func testStatusCodesHaveReasonPhrasesAndUnknownOnesAreRepresentable() {
        XCTAssertEqual(HTTPStatusCode.ok.rawValue, 200)
        XCTAssertEqual(HTTPStatusCode.noContent.reasonPhrase, "No Content")
        XCTAssertEqual(HTTPStatusCode(rawValue: 418).rawValue, 418)
        XCTAssertEqual(HTTPStatusCode(rawValue: 599).reasonPhrase, "Unknown")
        let code = HTTPStatusCode(rawValue: 409)
        switch code {
        case .conflict: break
        default: XCTFail("409 should match .conflict")
        }
    }

    func testDecodeAndGetString() throws {
        struct Echo: Decodable { let method: String; let path: String }
        let response = try sendOK(transport, HTTPRequest(httpMethod: .delete, endpoint: server.http + "/anything/x"))
        let echo = try response.decode(Echo.self)
        XCTAssertEqual(echo.method, "DELETE")
        XCTAssertEqual(echo.path, "/anything/x")
        XCTAssertTrue(response.getString()?.contains("DELETE") ?? false)
    }

    func testNonDictionaryJSONIsWrappedUnderData() throws {
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/json-array"))
        XCTAssertEqual(try response.getJSONDictionary()?["data"] as? [Int], [1, 2, 3])
    }

    func testEmptyBodyGivesNilJSON() throws {
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/empty"))
        XCTAssertNil(try response.getJSON())
    }

    func testHeadRequestHasNoBody() throws {
        let response = try sendOK(transport, HTTPRequest(httpMethod: .head, endpoint: server.http + "/anything"))
        XCTAssertEqual(response.httpStatus, .ok)
        XCTAssertTrue(response.body?.isEmpty ?? true)
    }

    func testResponseCarriesTheRequestAsSentAfterInterceptors() throws {
        let stamp = ClosureRequestInterceptor { request in
            var request = request
            request.setValue("yes", forHTTPHeaderField: "X-Stamped")
            return request
        }
        let response = try sendOK(HTTPTransport(requestInterceptors: [stamp]), HTTPRequest(endpoint: server.http + "/anything"))
        XCTAssertEqual(response.request.value(forHTTPHeaderField: "X-Stamped"), "yes")
        XCTAssertEqual((try echo(response)["headers_dict"] as? [String: String])?["x-stamped"], "yes")
    }

    func testGzipBodyIsDecompressedTransparently() throws {
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/gzip"))
        XCTAssertEqual(response.header(named: "Content-Encoding"), "gzip")
        XCTAssertEqual(try response.getJSONDictionary()?["gzipped"] as? Bool, true)
    }

    func testDefaultUserAgentNamesTheLibrary() throws {
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything"))
        let agent = (try echo(response)["headers_dict"] as? [String: String])?["user-agent"]
        XCTAssertTrue(agent?.hasPrefix("HTTPTransport/") ?? false, agent ?? "")
    }

    func testEveryMethodIsSent() throws {
        for method in HTTPRequest.HTTPMethod.allCases where method != .connect && method != .head {
            let response = try sendOK(transport, HTTPRequest(httpMethod: method, endpoint: server.http + "/anything"))
            XCTAssertEqual(try echo(response)["method"] as? String, method.rawValue)
        }
    }
}
