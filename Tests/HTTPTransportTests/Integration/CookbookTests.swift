import Foundation
import HTTPTransport
import XCTest

/// The seed README's cook book, as written (only the URLs changed to the local server).
final class CookbookTests: XCTestCase {
    func testBasicGETRequest() throws {
        let endpoint = server.http + "/json"
        var parsed: [String: Any]?

        // assuming all following code runs in a background thread

        let request   = HTTPRequest(endpoint: endpoint)
        let transport = HTTPTransport()

        let result: HTTPTransport.Result = transport.send(request: request)

        switch result {
            case .success(let httpResponse):
                do {
                    if let json: [String: Any] = try httpResponse.getJSONDictionary() {
                        parsed = json
                    }
                } catch {
                    print("JSONSerialization error")
                }
            case .failure(let nsError):
                if let httpStatus: HTTPStatusCode = nsError.httpStatusCode {
                    XCTFail("HTTP status \(httpStatus)")
                } else {
                    XCTFail("failure \(nsError)")
                }
        }
        XCTAssertEqual(parsed?["ok"] as? Bool, true)
        XCTAssertEqual((parsed?["slideshow"] as? [String: Any])?["title"] as? String, "Sample")
    }

    func testBasicDependentRequests() throws {
        let endpoint = server.http
        var foundUsers: [[String: Any]]?

        func getSessionId(_ result: HTTPTransport.Result) -> String? {
            (try? result.value?.getJSONDictionary())?["session_id"] as? String
        }
        func getUsers(_ result: HTTPTransport.Result) -> [[String: Any]]? {
            (try? result.value?.getJSONDictionary())?["users"] as? [[String: Any]]
        }

        // assuming all following code runs in a background thread

        let transport = HTTPTransport()

        let baseRequest =
            HTTPRequest(endpoint: endpoint)
                .with(header: "User-Agent", value: "Application/iOS")

        let authRequest = HTTPRequest(endpoint: "/session", base: baseRequest)
        let authResult  = transport.send(request: authRequest)

        if let sessionId: String = getSessionId(authResult) {
            let userSearchRequest =
                HTTPRequest(endpoint: "/user", base: baseRequest)
                    .with(cookieName: "SESSION_ID", value: sessionId)
                    .with(parameters: ["first_name": "John", "last_name": "Appleseed"], encoding: .url)

            let searchResult = transport.send(request: userSearchRequest)
            if let users = getUsers(searchResult) {
                foundUsers = users
            } else {
                XCTFail("no users: \(searchResult)")
            }
        } else {
            XCTFail("no session: \(authResult)")
        }
        XCTAssertEqual(foundUsers?.first?["first_name"] as? String, "John")
        XCTAssertEqual(foundUsers?.first?["last_name"] as? String, "Appleseed")
    }

    func testBaseRequestHeaderReachesServer() throws {
        let base = HTTPRequest(endpoint: server.http).with(header: "User-Agent", value: "Application/iOS")
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: "/anything", base: base))
        let headers = try XCTUnwrap(try echo(response)["headers_dict"] as? [String: String])
        XCTAssertEqual(headers["user-agent"], "Application/iOS")
    }

    func testPOSTRequestWithBodyAndURLParameters() throws {
        let transport = HTTPTransport()
        let endpoint = server.http + "/salary"

        let urlParameters = HTTPRequestParameters(
            parameters: ["first_name" : "John"],
            encoding: .url
        )

        let bodyParameters = HTTPRequestParameters(
            parameters: ["salary" : 100000],
            encoding: .json
        )

        let updateSalaryRequest = HTTPRequest(
            endpoint: endpoint,
            parameters: [urlParameters, bodyParameters]
        )

        let result = transport.send(request: updateSalaryRequest)

        let echo = try echo(try result.get())
        XCTAssertEqual(echo["method"] as? String, "GET")  // no httpMethod given: a GET with a JSON body
        XCTAssertEqual(echo["query"] as? String, "first_name=John")
        XCTAssertEqual((echo["json"] as? [String: Any])?["salary"] as? Int, 100000)
        let headers = try XCTUnwrap(echo["headers_dict"] as? [String: String])
        XCTAssertEqual(headers["content-type"], "application/json")
    }
}

/// The cook book's logging and cookie transports, as written.
final class CookbookInterceptorTests: XCTestCase {
    func testLoggingTransportSends() throws {
        let transport = HTTPTransport(
            requestInterceptors: [
                LogRequestInterceptor(logLevel: LogRequestInterceptor.LogLevel.url),
            ],
            responseInterceptors: [
                LogResponseInterceptor(logLevel: LogResponseInterceptor.LogLevel.everything),
            ])
        XCTAssertTrue(transport.send(request: HTTPRequest(endpoint: server.http + "/json")).isSuccess)
    }

    func testSendAndReceiveCookies() throws {
        let cookieStorage: CookieStoring & CookieProviding = CookieStorage()

        let transport = HTTPTransport(
            requestInterceptors: [
                AddCookieInterceptor(cookieProvider: cookieStorage),
            ],
            responseInterceptors: [
                ReceivedCookieInterceptor(cookieStorage: cookieStorage),
            ])

        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/cookies/set?flavour=oat&size=large"))
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/cookies"))
        XCTAssertEqual(try echo(response)["cookies"] as? [String: String], ["flavour": "oat", "size": "large"])
    }

    func testCookiesSetDuringALoginRedirectAreKept() throws {
        let storage = CookieStorage()
        let transport = HTTPTransport(requestInterceptors: [AddCookieInterceptor(cookieProvider: storage)],
                                      responseInterceptors: [ReceivedCookieInterceptor(cookieStorage: storage)])
        // /session sets SESSION_ID; /user requires it.
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/session"))
        let users = try sendOK(transport, HTTPRequest(endpoint: server.http + "/user?first_name=A&last_name=B"))
        XCTAssertEqual(users.httpStatus, .ok)
        XCTAssertNotNil(storage.cookieHeader(for: try XCTUnwrap(URL(string: server.http + "/user"))))
    }
}
