import Foundation
import HTTPTransport
import HTTPTransportHTTPTypes
import HTTPTypes
import XCTest

/// swift-http-types requests through the library's pipeline: every status comes back as a
/// response, any method and repeated fields go on the wire as written, failures without a
/// response throw. This file imports both modules, so it also proves each type can be named.
final class HTTPTypesSendTests: XCTestCase {
    let transport = HTTPTransport()

    private func request(_ method: HTTPTypes.HTTPRequest.Method = .get, _ path: String,
                         fields: HTTPFields = [:]) -> HTTPTypes.HTTPRequest {
        HTTPTypes.HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:\(server.ports["http"] ?? 0)",
                              path: path, headerFields: fields)
    }

    private func json(_ body: Data) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    }

    func testEveryTypeOfBothModulesCanBeNamed() {
        let ours: HTTPTransport.HTTPRequest = HTTPTransport.HTTPRequest(endpoint: server.http + "/get")
        let theirs: HTTPTypes.HTTPRequest = request(.get, "/get")
        let alsoOurs: HTTPTransportRequest = ours
        let responseType: HTTPTransport.HTTPResponse.Type = HTTPTransportResponse.self
        let theirResponse = HTTPTypes.HTTPResponse(status: .ok)
        XCTAssertEqual(alsoOurs.endpoint, ours.endpoint)
        XCTAssertEqual(theirs.method, .get)
        XCTAssertTrue(responseType == HTTPTransport.HTTPResponse.self)
        XCTAssertEqual(theirResponse.status.code, 200)
    }

    func testABlockingSendReturnsTheResponseAndItsBody() throws {
        let (response, body) = try transport.send(request: request(.get, "/get?x=1"))
        XCTAssertEqual(response.status, .ok)
        XCTAssertEqual(response.headerFields[.contentType], "application/json")
        XCTAssertEqual(try json(body)["query"] as? String, "x=1")
    }

    func testAnAsyncSendReturnsTheResponseAndItsBody() async throws {
        let (response, body) = try await transport.send(request(.post, "/post", fields: [.contentType: "text/plain"]),
                                                        body: Data("hello".utf8))
        XCTAssertEqual(response.status.code, 200)
        let echo = try json(body)
        XCTAssertEqual(echo["method"] as? String, "POST")
        XCTAssertEqual(echo["body_text"] as? String, "hello")
        XCTAssertEqual((echo["headers_dict"] as? [String: String])?["content-type"], "text/plain")
    }

    func testEveryStatusComesBackAsAResponse() async throws {
        let (notFound, body) = try await transport.send(request(.get, "/status/404?code=missing"))
        XCTAssertEqual(notFound.status, .notFound)
        XCTAssertEqual(try json(body)["code"] as? String, "missing")
        let (serverError, _) = try transport.send(request: request(.get, "/status/503"))
        XCTAssertEqual(serverError.status.code, 503)
    }

    func testAnyMethodTokenIsSentAsWritten() throws {
        for token in ["PURGE", "PROPFIND", "M-SEARCH"] {
            let method = try XCTUnwrap(HTTPTypes.HTTPRequest.Method(token))
            let (_, body) = try transport.send(request: request(method, "/anything"))
            XCTAssertEqual(try json(body)["method"] as? String, token)
        }
    }

    func testRepeatedFieldsKeepTheirOrderBothWays() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .accept, value: "application/json"))
        fields.append(HTTPField(name: .init("X-Between")!, value: "x"))
        fields.append(HTTPField(name: .accept, value: "text/plain"))
        let (_, body) = try transport.send(request: request(.get, "/anything", fields: fields))
        let pairs = try XCTUnwrap(try json(body)["headers"] as? [[String]])
        XCTAssertEqual(pairs.filter { ["Accept", "X-Between"].contains($0[0]) },
                       [["Accept", "application/json"], ["X-Between", "x"], ["Accept", "text/plain"]])

        let (response, _) = try transport.send(request: request(.get, "/headers/multi"))
        XCTAssertEqual(response.headerFields[values: .setCookie], ["a=1; Path=/", "b=2; Path=/"])
        XCTAssertEqual(response.headerFields[values: HTTPField.Name("X-Multi")!], ["one", "two"])
    }

    func testAFailureWithoutAResponseThrows() throws {
        let refused = HTTPTypes.HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(TestServer.closedPort())", path: "/")
        XCTAssertThrowsError(try transport.send(request: refused)) { error in
            XCTAssertEqual((error as? HTTPTransportError)?.code, .cannotConnect)
        }
        let nowhere = HTTPTypes.HTTPRequest(method: .get, scheme: "http", authority: nil, path: "/")
        XCTAssertThrowsError(try transport.send(request: nowhere)) { error in
            XCTAssertEqual((error as? HTTPTransportError)?.code, .invalidURL)
        }
    }

    func testTheTransportsInterceptorsSeeTheRequest() throws {
        let tagging = HTTPTransport(requestInterceptors: [ClosureRequestInterceptor { request in
            var request = request
            request.setValue("yes", forHTTPHeaderField: "X-Intercepted")
            return request
        }])
        let (_, body) = try tagging.send(request: request(.get, "/anything"))
        XCTAssertEqual((try json(body)["headers_dict"] as? [String: String])?["x-intercepted"], "yes")
    }

    func testHeadersAndFieldsConvertBothWaysInOrder() {
        let headers: HTTPHeaders = ["Set-Cookie": "a=1", "X-One": "1", "Set-Cookie": "b=2"]
        let fields = HTTPFields(headers)
        XCTAssertEqual(fields.map(\.name.rawName), ["Set-Cookie", "X-One", "Set-Cookie"])
        XCTAssertEqual(HTTPHeaders(fields), headers)
    }
}
