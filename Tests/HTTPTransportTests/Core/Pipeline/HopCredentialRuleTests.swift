import Foundation
import HTTPTransport
import XCTest

/// The redirect hop rules at the rule level, through `StubEngine`: what each hop hands the
/// engine (after every interceptor ran) when the origin changes (scheme, host or port) or not.
final class HopCredentialRuleTests: XCTestCase {
    /// Every credential an interceptor (a token or proxy interceptor) adds on every hop.
    private let interceptors: [any HTTPRequestInterceptor] = [
        SetHeaderInterceptor(name: "Authorization", value: "Bearer FROM-INTERCEPTOR"),
        SetHeaderInterceptor(name: "Proxy-Authorization", value: "Basic FROM-INTERCEPTOR"),
    ]

    /// A stub where each URL in `chain` redirects to the next one; the last answers 200.
    private func chain(_ urls: [String], status: Int = 302) -> RecordingStub {
        var routes: [String: @Sendable (RawRequest) -> RawResponse] = [:]
        for (from, to) in zip(urls, urls.dropFirst()) {
            routes[from] = { RecordingStub.redirect($0, status, to: to) }
        }
        return RecordingStub(routes: routes)
    }

    private func request(_ url: String) -> HTTPRequest {
        HTTPRequest(endpoint: url).with(header: "X-Other", value: "kept").with(cookieName: "own", value: "1")
    }

    private func assertNoCredentials(_ request: RawRequest?, file: StaticString = #filePath, line: UInt = #line) {
        for name in ["Authorization", "Proxy-Authorization", "Cookie"] {
            XCTAssertNil(request?.value(forHTTPHeaderField: name), "\(name) on \(String(describing: request?.url))",
                         file: file, line: line)
        }
        XCTAssertEqual(request?.value(forHTTPHeaderField: "X-Other"), "kept", file: file, line: line)
    }

    private func assertCredentials(_ request: RawRequest?, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(request?.value(forHTTPHeaderField: "Authorization"), "Bearer FROM-INTERCEPTOR", file: file, line: line)
        XCTAssertEqual(request?.value(forHTTPHeaderField: "Proxy-Authorization"), "Basic FROM-INTERCEPTOR", file: file, line: line)
        XCTAssertEqual(request?.value(forHTTPHeaderField: "Cookie"), "own=1", file: file, line: line)
    }

    func testEveryKindOfOriginChangeDropsTheCredentials() throws {
        // Host; scheme (and port); port alone; scheme alone (port 80 both); a host that only starts alike.
        let targets = ["http://b.stub.test/next", "https://a.stub.test/next", "http://a.stub.test:8080/next",
                       "https://a.stub.test:80/next", "http://a.stub.test.evil/next"]
        for target in targets {
            let stub = chain(["http://a.stub.test/start", target])
            _ = try stub.transport(requestInterceptors: interceptors).send(request: request("http://a.stub.test/start")).get()
            XCTAssertEqual(stub.requests.count, 2)
            assertCredentials(stub.requests.first)
            assertNoCredentials(stub.requests.last)
        }
    }

    func testTheSameOriginWrittenDifferentlyKeepsTheCredentials() throws {
        for target in ["http://a.stub.test:80/next", "http://A.STUB.TEST/next", "/next"] {
            let stub = chain(["http://a.stub.test/start", target])
            _ = try stub.transport(requestInterceptors: interceptors).send(request: request("http://a.stub.test/start")).get()
            assertCredentials(stub.requests.last)
        }
    }

    func testOnlyTheFirstOriginGetsTheCredentialsBack() throws {
        // a → b → b → a: the hops on b carry nothing, the hop back to a everything again.
        let urls = ["http://a.stub.test/1", "http://b.stub.test/2", "http://b.stub.test/3", "http://a.stub.test/4"]
        let stub = chain(urls, status: 307)
        _ = try stub.transport(requestInterceptors: interceptors).send(request: request(urls[0])).get()
        XCTAssertEqual(stub.requests.map(\.url.absoluteString), urls)
        assertCredentials(stub.requests[0])
        assertNoCredentials(stub.requests[1])
        assertNoCredentials(stub.requests[2])
        assertCredentials(stub.requests[3])
    }

    func testTheRequestsOwnCredentialsAreDroppedToo() throws {
        let stub = chain(["http://a.stub.test/start", "http://b.stub.test/next"])
        let own = request("http://a.stub.test/start").with(bearerToken: "OWN").with(header: "Proxy-Authorization", value: "Basic OWN")
        _ = try stub.transport().send(request: own).get()
        XCTAssertEqual(stub.requests.first?.value(forHTTPHeaderField: "Authorization"), "Bearer OWN")
        assertNoCredentials(stub.requests.last)
    }

    func testACustomCredentialListReplacesTheDefault() throws {
        var configuration = Session.Configuration()
        configuration.credentialHeaders = ["x-api-key"]
        let stub = chain(["http://a.stub.test/start", "http://b.stub.test/next"])
        let transport = stub.transport(configuration: configuration,
                                       requestInterceptors: interceptors + [SetHeaderInterceptor(name: "X-Api-Key", value: "K")])
        _ = try transport.send(request: HTTPRequest(endpoint: "http://a.stub.test/start")).get()
        let crossed = try XCTUnwrap(stub.requests.last)
        XCTAssertNil(crossed.value(forHTTPHeaderField: "X-Api-Key"))
        XCTAssertEqual(crossed.value(forHTTPHeaderField: "Authorization"), "Bearer FROM-INTERCEPTOR")
    }

    func testEveryHeaderTheLogsHideAsACredentialIsDroppedByDefault() throws {
        let secrets = ["X-Api-Key", "Api-Key", "X-Auth-Token", "X-Access-Token", "X-Amz-Security-Token", "X-Goog-Api-Key",
                       "Private-Token", "X-Vault-Token", "Api-Token", "X-CSRF-Token"]
        let stub = chain(["http://a.stub.test/start", "http://b.stub.test/next"])
        let adding = secrets.map { SetHeaderInterceptor(name: $0, value: "SECRET") as any HTTPRequestInterceptor }
        _ = try stub.transport(requestInterceptors: interceptors + adding)
            .send(request: request("http://a.stub.test/start")).get()
        for name in secrets {
            XCTAssertEqual(stub.requests.first?.value(forHTTPHeaderField: name), "SECRET", name)
            XCTAssertNil(stub.requests.last?.value(forHTTPHeaderField: name), name)
            XCTAssertTrue(LogRedaction.default.hidesHeader(name), name)
        }
        assertNoCredentials(stub.requests.last)
    }

    func testTheDefaultCredentialListIsTheOneTheLogsHide() {
        XCTAssertEqual(Session.Configuration().credentialHeaders, Session.Configuration.defaultCredentialHeaders)
        XCTAssertTrue(Session.Configuration.defaultCredentialHeaders.contains("Authorization"))
        XCTAssertTrue(Session.Configuration.defaultCredentialHeaders.contains("Proxy-Authorization"))
        XCTAssertEqual(LogRedaction.defaultHeaders,
                       Set(Session.Configuration.defaultCredentialHeaders).union(["Cookie", "Set-Cookie"]))
    }

    func testCookiesAddedForTheHopsOwnURLAreSent() throws {
        let storage = CookieStorage()
        storage.store(setCookieHeaders: ["theirs=2; Path=/"], for: try XCTUnwrap(URL(string: "http://b.stub.test/")))
        storage.store(setCookieHeaders: ["mine=0; Path=/"], for: try XCTUnwrap(URL(string: "http://a.stub.test/")))
        let stub = chain(["http://a.stub.test/start", "http://b.stub.test/next"])
        let transport = stub.transport(requestInterceptors: [AddCookieInterceptor(cookieProvider: storage)])
        _ = try transport.send(request: request("http://a.stub.test/start")).get()
        XCTAssertEqual(stub.requests.first?.value(forHTTPHeaderField: "Cookie"), "own=1; mine=0")
        XCTAssertEqual(stub.requests.last?.value(forHTTPHeaderField: "Cookie"), "theirs=2")
    }

    func testTheHopsInterceptorsSeeWhereTheyComeFrom() throws {
        let urls = ["http://a.stub.test/1", "http://b.stub.test/2", "http://b.stub.test/3"]
        let stub = chain(urls)
        let seen = Recorder<String>()
        let recording = ClosureRequestInterceptor { request in
            seen.add(request.redirectedFrom?.absoluteString ?? "-")
            return request
        }
        _ = try stub.transport(requestInterceptors: [recording]).send(request: HTTPRequest(endpoint: urls[0])).get()
        XCTAssertEqual(seen.values, ["-", urls[0], urls[1]])
        XCTAssertEqual(stub.requests.map { $0.redirectedFrom?.absoluteString ?? "-" }, ["-", urls[0], urls[1]])
    }
}
