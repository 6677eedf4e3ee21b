import Foundation
import HTTPTransport
import XCTest

/// The parameter merge rules of DESIGN §1, checked on the resolved wire request.
final class ParameterMergeTests: XCTestCase {
    private let endpoint = "http://127.0.0.1:9/path"

    private func bodyJSON(_ raw: RawRequest) throws -> [String: Any] {
        let body = try XCTUnwrap(raw.httpBody)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    }

    func testSameEncodingSetsMergeIntoOneDictionary() throws {
        let request = HTTPRequest(endpoint: endpoint, parameters: [
            HTTPRequestParameters(parameters: ["name": "John"], encoding: .json),
            HTTPRequestParameters(parameters: ["dob": "12/12/12"], encoding: .json),
            HTTPRequestParameters(parameters: ["age": 5], encoding: .url),
        ])
        let raw = try request.resolve()
        let json = try bodyJSON(raw)
        XCTAssertEqual(json["name"] as? String, "John")
        XCTAssertEqual(json["dob"] as? String, "12/12/12")
        XCTAssertNil(json["age"])
        XCTAssertEqual(raw.url.query, "age=5")
    }

    func testLaterKeysOverrideEarlierOnes() throws {
        let request = HTTPRequest(endpoint: endpoint)
            .with(parameters: ["a": 1, "b": 1], encoding: .json)
            .with(parameters: ["a": 2], encoding: .json)
        let json = try bodyJSON(try request.resolve())
        XCTAssertEqual(json["a"] as? Int, 2)
        XCTAssertEqual(json["b"] as? Int, 1)
    }

    func testOwnSetsComeAfterAndOverrideBaseSets() throws {
        let base = HTTPRequest(endpoint: "http://127.0.0.1:9")
            .with(parameters: ["token": "base", "keep": "yes"], encoding: .url)
            .with(parameters: ["x": "base"], encoding: .json)
        let request = HTTPRequest(endpoint: "/p", parameters: [
            HTTPRequestParameters(parameters: ["token": "own"], encoding: .url),
            HTTPRequestParameters(parameters: ["x": "own"], encoding: .json),
        ], base: base)
        let raw = try request.resolve()
        XCTAssertEqual(raw.url.query, "keep=yes&token=own")
        XCTAssertEqual(try bodyJSON(raw)["x"] as? String, "own")
        XCTAssertEqual(base.parameters.count, 2, "the base is never mutated")
    }

    func testJSONAndPropertyListDoNotMixLastOneWins() throws {
        let plistLast = HTTPRequest(endpoint: endpoint)
            .with(parameters: ["a": 1], encoding: .json)
            .with(parameters: ["b": 2], encoding: .propertyList)
        let raw = try plistLast.resolve()
        XCTAssertEqual(raw.value(forHTTPHeaderField: "content-type"), "application/x-plist")
        let plist = try PropertyListSerialization.propertyList(from: try XCTUnwrap(raw.httpBody), format: nil) as? [String: Any]
        XCTAssertEqual(plist?["b"] as? Int, 2)
        XCTAssertNil(plist?["a"])

        let jsonLast = plistLast.with(parameters: ["c": 3], encoding: .json)
        let json = try bodyJSON(try jsonLast.resolve())
        XCTAssertEqual(json["a"] as? Int, 1)
        XCTAssertEqual(json["c"] as? Int, 3)
        XCTAssertNil(json["b"])
    }

    func testEveryURLSetReachesTheQueryAppendedToAnExistingQuery() throws {
        let request = HTTPRequest(endpoint: endpoint + "?fixed=1")
            .with(parameters: ["b": "2"], encoding: .url)
            .with(parameters: ["a": "1"], encoding: .json)
            .with(parameters: ["c": "3"], encoding: .url)
        let raw = try request.resolve()
        XCTAssertEqual(raw.url.query, "fixed=1&b=2&c=3")
    }

    func testURLParametersGoToTheQueryForAnyMethod() throws {
        for method in [HTTPRequest.HTTPMethod.post, .put, .delete, .patch] {
            let raw = try HTTPRequest(httpMethod: method, endpoint: endpoint)
                .with(parameter: "q", value: "x y", encoding: .url).resolve()
            XCTAssertEqual(raw.url.query, "q=x%20y")
            XCTAssertNil(raw.body)
        }
    }

    func testFormSetsBecomeAFormBody() throws {
        let raw = try HTTPRequest(httpMethod: .post, endpoint: endpoint)
            .with(parameters: ["name": "J D", "n": 1], encoding: .form).resolve()
        XCTAssertEqual(raw.value(forHTTPHeaderField: "Content-Type"), "application/x-www-form-urlencoded; charset=utf-8")
        XCTAssertEqual(raw.httpBody.map { String(decoding: $0, as: UTF8.self) }, "n=1&name=J%20D")
    }

    func testFileUploadIgnoresJSONAndSendsOtherBodySetsAsFormFields() throws {
        let part = FileMultipart(data: Data("hello".utf8), partName: "file", fileName: "a.txt", mimeType: "text/plain")
        let raw = try FileUploadHTTPRequest(endpoint: endpoint, parameters: [
            HTTPRequestParameters(parameters: ["ignored": true], encoding: .json),
            HTTPRequestParameters(parameters: ["field": "v"], encoding: .propertyList),
            HTTPRequestParameters(parameters: ["q": 1], encoding: .url),
        ], fileMultipart: part).resolve()
        XCTAssertEqual(raw.url.query, "q=1")
        guard case .multipart(let parts) = raw.body else { return XCTFail("expected multipart, got \(String(describing: raw.body))") }
        XCTAssertEqual(parts.map(\.name), ["file", "field"])
        XCTAssertEqual(parts.last?.content, .data(Data("v".utf8)))
    }

    func testDataUploadIgnoresJSONAndPropertyListSets() throws {
        let raw = try DataUploadHTTPRequest(endpoint: endpoint, parameters: [
            HTTPRequestParameters(parameters: ["a": 1], encoding: .json),
            HTTPRequestParameters(parameters: ["b": 2], encoding: .propertyList),
            HTTPRequestParameters(parameters: ["c": 3], encoding: .url),
        ], data: Data([1, 2, 3])).resolve()
        XCTAssertEqual(raw.httpBody, Data([1, 2, 3]))
        XCTAssertEqual(raw.url.query, "c=3")
        XCTAssertEqual(raw.method, .post)
    }

    func testCustomEncodingGetsTheResolvedRequestAndItsParameters() throws {
        let custom = HTTPRequestParameters(parameters: ["sig": "abc"], encoding: .custom(encode: { request, parameters in
            var request = request
            request.setValue(parameters["sig"] as? String, forHTTPHeaderField: "X-Signature")
            request.setValue(request.url.query, forHTTPHeaderField: "X-Signed-Query")
            return request
        }))
        let raw = try HTTPRequest(endpoint: endpoint).with(parameters: ["q": 1], encoding: .url).with(parameters: custom).resolve()
        XCTAssertEqual(raw.value(forHTTPHeaderField: "X-Signature"), "abc")
        XCTAssertEqual(raw.value(forHTTPHeaderField: "X-Signed-Query"), "q=1")
    }

    func testBaseEndpointJoining() throws {
        func joined(_ base: String, _ endpoint: String) -> String {
            HTTPRequest(endpoint: endpoint, base: HTTPRequest(endpoint: base)).endpoint
        }
        XCTAssertEqual(joined("http://h", "user"), "http://h/user")
        XCTAssertEqual(joined("http://h", "/user"), "http://h/user")
        XCTAssertEqual(joined("http://h/", "/user"), "http://h/user")
        XCTAssertEqual(joined("http://h/api", "?q=1"), "http://h/api?q=1")
        XCTAssertEqual(joined("http://h/api", ""), "http://h/api")
    }

    func testBaseHeadersAreOverriddenAndInterceptorsAndSettingsInherited() throws {
        let session = Session()
        let base = HTTPRequest(endpoint: "http://h", headers: ["Accept": "a", "X-Base": "1"], session: session, timeout: 5)
            .with(interceptors: [ClosureRequestInterceptor { $0 }])
        let request = HTTPRequest(endpoint: "/x", headers: ["accept": "b"], base: base)
            .with(interceptors: [ClosureRequestInterceptor { $0 }, ClosureRequestInterceptor { $0 }])
        XCTAssertEqual(request.headers["accept"], "b")
        XCTAssertNil(request.headers["Accept"])
        XCTAssertEqual(request.headers["X-Base"], "1")
        XCTAssertTrue(request.session === session)
        XCTAssertEqual(request.timeout, 5)
        XCTAssertEqual(request.requestInterceptors.count, 3)
        XCTAssertEqual(HTTPRequest(endpoint: "/x", timeout: 7, base: base).timeout, 7)
        XCTAssertEqual(HTTPRequest(endpoint: "http://h").timeout, 30)
    }

    func testBuildersReturnCopiesAndLeaveTheOriginalAlone() throws {
        let original = HTTPRequest(endpoint: endpoint)
        let changed = original.with(header: "A", value: "1").with(cookieName: "s", value: "1").with(cookieName: "t", value: "2")
            .with(basicAuthUser: "user", password: "pass")
        XCTAssertTrue(original.headers.isEmpty)
        XCTAssertEqual(changed.headers["Cookie"], "s=1; t=2")
        XCTAssertEqual(changed.headers["Authorization"], "Basic dXNlcjpwYXNz")
        XCTAssertEqual(changed.with(cookie: HTTPCookie(name: "u", value: "3")).headers["Cookie"], "s=1; t=2; u=3")
    }

    func testParametersSubscriptReadsAndWrites() {
        var set = HTTPRequestParameters(parameters: ["a": 1], encoding: .url)
        set["b"] = "two"
        XCTAssertEqual(set["a"] as? Int, 1)
        XCTAssertEqual(set["b"] as? String, "two")
        set["a"] = nil
        XCTAssertNil(set["a"])
        XCTAssertEqual(set.parameters.count, 1)
    }
}

/// Interceptor order: the request's own (however added), then its base's, then the transport's.
final class InterceptorOrderTests: XCTestCase {
    func testOwnInterceptorsRunBeforeTheBaseAndTheTransport() throws {
        let order = Recorder<String>()
        func mark(_ name: String) -> ClosureRequestInterceptor {
            ClosureRequestInterceptor { request in
                order.add(name)
                return request
            }
        }
        func markResponse(_ name: String) -> ClosureResponseInterceptor {
            ClosureResponseInterceptor { response in
                order.add(name)
                return response
            }
        }
        let base = HTTPRequest(endpoint: server.http).with(interceptors: [mark("base")]).with(interceptors: [markResponse("base-response")])
        let request = HTTPRequest(endpoint: "/json", requestInterceptors: [mark("init")], base: base)
            .with(interceptors: [mark("added")])
            .with(interceptors: [markResponse("own-response")])
        let transport = HTTPTransport(requestInterceptors: [mark("transport")], responseInterceptors: [markResponse("transport-response")])
        _ = try sendOK(transport, request)
        XCTAssertEqual(order.values, ["init", "added", "base", "transport", "own-response", "base-response", "transport-response"])
    }

    func testThrownErrorIsKeptAsTheUnderlyingError() {
        struct Denied: Error, Equatable { let reason: String }
        let request = HTTPRequest(endpoint: server.http + "/json")
            .with(interceptors: [ClosureRequestInterceptor { _ in throw Denied(reason: "no") }])
        let error = HTTPTransport().send(request: request).error
        XCTAssertEqual(error?.code, .interceptorFailed)
        XCTAssertEqual(error?.underlyingError as? Denied, Denied(reason: "no"))
    }
}
