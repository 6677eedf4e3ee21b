import Foundation
import HTTPTransport
import XCTest

/// How `HTTPArchiveEngine` answers: by method and URL (query order ignored, redacted values
/// matching anything), repeated entries in turn, clear failures; archives from the recorder and
/// from browsers.
final class HTTPArchiveEngineTests: XCTestCase {
    private func replaying(_ json: String) throws -> HTTPTransport {
        HTTPTransport(session: Session(engine: try HTTPArchiveEngine(data: Data(json.utf8))))
    }

    /// A minimal archive of entries `(method, url, status, body)`.
    private func archive(_ entries: [(String, String, Int, String)]) -> String {
        let items = entries.map { method, url, status, body in
            """
            {"startedDateTime": "2026-11-25T10:00:00.000Z", "time": 1, "cache": {},
             "timings": {"send": 0, "wait": 1, "receive": 0},
             "request": {"method": "\(method)", "url": "\(url)", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                         "queryString": [], "headersSize": -1, "bodySize": 0},
             "response": {"status": \(status), "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [],
                          "headers": [{"name": "Content-Type", "value": "text/plain"}],
                          "content": {"size": \(body.utf8.count), "mimeType": "text/plain", "text": "\(body)"},
                          "redirectURL": "", "headersSize": -1, "bodySize": -1}}
            """
        }
        return #"{"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": ["#
            + items.joined(separator: ",") + "]}}"
    }

    func test_replaysWhatTheRecorderRecorded() throws {
        // Byte for byte: `/bytes` is binary data the default redaction leaves out.
        let recorder = HTTPArchiveRecorder(redaction: .disabled)
        let live = HTTPTransport(responseInterceptors: [recorder])
        let original = try sendOK(live, HTTPRequest(endpoint: server.http + "/bytes/300"))
        let originalNotFound = live.send(request: HTTPRequest(endpoint: server.http + "/status/404")).error

        let replay = HTTPTransport(session: Session(engine: try HTTPArchiveEngine(data: recorder.archiveData())))
        let replayed = try sendOK(replay, HTTPRequest(endpoint: server.http + "/bytes/300"))
        XCTAssertEqual(replayed.body, original.body)
        XCTAssertEqual(replayed.httpStatus, .ok)
        XCTAssertEqual(replayed.header(named: "X-SHA256"), original.header(named: "X-SHA256"))
        XCTAssertEqual(replayed.metrics.httpVersion, "1.1")
        XCTAssertEqual(replayed.metrics.remoteAddress, "127.0.0.1")
        let notFound = replay.send(request: HTTPRequest(endpoint: server.http + "/status/404")).error
        XCTAssertEqual(notFound?.httpStatusCode, .notFound)
        XCTAssertEqual(notFound?.responseBodyData, originalNotFound?.responseBodyData)
    }

    func test_queryParametersMatchInAnyOrder() throws {
        let transport = try replaying(archive([("GET", "http://api.test/items?b=2&a=1&a=3", 200, "items")]))
        let response = try transport.send(request: HTTPRequest(endpoint: "http://api.test/items?a=1&b=2&a=3")).get()
        XCTAssertEqual(response.getString(), "items")
    }

    func test_aDifferentQueryValueDoesNotMatch() throws {
        let transport = try replaying(archive([("GET", "http://api.test/items?page=1", 200, "page 1")]))
        let error = try XCTUnwrap(transport.send(request: HTTPRequest(endpoint: "http://api.test/items?page=2")).error)
        XCTAssertEqual(error.code, .other)
        XCTAssertTrue(error.message.hasSuffix("recorded with other query parameters: GET http://api.test/items?page=1."),
                      error.message)
        XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: "http://api.test/items?page=1&extra=1")).error?.code, .other)
    }

    func test_aRedactedValueMatchesAnyValue() throws {
        let transport = try replaying(archive([("GET", "https://<redacted>@api.test/me?token=<redacted>&v=2", 200, "me")]))
        let request = HTTPRequest(endpoint: "https://user:pw@api.test/me?v=2&token=abc%20def")
        XCTAssertEqual(try transport.send(request: request).get().getString(), "me")
    }

    func test_aPartlyRedactedValueMatchesAnyValueOfItsShape() throws {
        let recorded = "http://api.test/callback?redirect_uri=https://app:<redacted>@app.test/done&state=1"
        let transport = try replaying(archive([("GET", recorded, 200, "ok"), ("GET", recorded, 200, "ok")]))
        let request = HTTPRequest(endpoint: "http://api.test/callback?state=1&redirect_uri=https://app:hunter2@app.test/done")
        XCTAssertEqual(transport.send(request: request).value?.getString(), "ok")
        let otherHost = HTTPRequest(endpoint: "http://api.test/callback?state=1&redirect_uri=https://app:x@evil.test/done")
        XCTAssertEqual(transport.send(request: otherHost).error?.code, .other)
    }

    func test_everyRecordedURLMatchesItsOwnRequest() throws {
        let urls = [
            "http://api.test/login?token%00%00api?????????Substring????b=0",  // the redaction hides the `=` too
            "http://api.test/cb?redirect_uri=https%3A%2F%2Fu%3Ap%40x.test%2F%3Ftoken%3Dabc&state=1",
            "http://api.test/a?token=%CC%81x&b=%CC%81",  // a combining mark right after the hidden part's place
            "https://user:pw@api.test/p?sig=1&sig=2&code=3&plain=4",
            // An apostrophe ended the redacted query, and `;token=` after it hid `&b=1` as part of
            // a path parameter's value (Fuzz/Corpus/FuzzHTTPArchive/found-fdc61956).
            "https://api.test/bin?q=O'Brien%00api.test.login;token=abc&b=1",
        ]
        for text in urls {
            let url = try XCTUnwrap(URL(string: text), text)
            let recorder = HTTPArchiveRecorder()
            _ = recorder.intercept(response: RawResponse(request: RawRequest(url: url), statusCode: .ok))
            let engine = try HTTPArchiveEngine(data: recorder.archiveData())
            let replayed = engine.execute(RawRequest(url: url), control: TransferControl())
            XCTAssertNil(replayed.error, "\(text): \(replayed.error?.message ?? "")")
        }
    }

    /// A fuzz finding (Fuzz/Corpus/FuzzHTTPArchive/found-dab2c34f): a host that reads as a secret
    /// path parameter is recorded redacted, and must still match its own request.
    func test_aRedactedPartOfTheHostMatchesItsOwnRequest() throws {
        let url = try XCTUnwrap(URL(string: "https://pi.test.login;token=abc&b=1"))
        let recorder = HTTPArchiveRecorder()
        _ = recorder.intercept(response: RawResponse(request: RawRequest(url: url), statusCode: .ok))
        XCTAssertTrue(try XCTUnwrap(String(data: recorder.archiveData(), encoding: .utf8)).contains("token=<redacted>"))
        let engine = try HTTPArchiveEngine(data: recorder.archiveData())
        XCTAssertNil(engine.execute(RawRequest(url: url), control: TransferControl()).error)
        let otherHost = try XCTUnwrap(URL(string: "https://evil.test;token=abc&b=1"))
        XCTAssertEqual(engine.execute(RawRequest(url: otherHost), control: TransferControl()).error?.code, .other)
    }

    func test_repeatedEntriesAreAnsweredInRecordedOrder() throws {
        let transport = try replaying(archive([
            ("GET", "http://api.test/counter", 200, "first"), ("POST", "http://api.test/counter", 201, "posted"),
            ("GET", "http://api.test/counter", 200, "second"),
        ]))
        let get = HTTPRequest(endpoint: "http://api.test/counter")
        XCTAssertEqual(transport.send(request: get).value?.getString(), "first")
        XCTAssertEqual(transport.send(request: get).value?.getString(), "second")
        let exhausted = try XCTUnwrap(transport.send(request: get).error)
        XCTAssertEqual(exhausted.code, .other)
        XCTAssertTrue(exhausted.message.contains("GET http://api.test/counter"), exhausted.message)
        XCTAssertTrue(exhausted.message.contains("used already"), exhausted.message)
        XCTAssertEqual(transport.send(request: HTTPRequest(httpMethod: .post, endpoint: "http://api.test/counter")).value?.httpStatus,
                       .created)
    }

    func test_anUnmatchedRequestFailsNamingMethodAndURL() throws {
        let transport = try replaying(archive([("GET", "http://api.test/a", 200, "a")]))
        let error = try XCTUnwrap(transport.send(request: HTTPRequest(httpMethod: .delete, endpoint: "http://api.test/a?x=1")).error)
        XCTAssertEqual(error.code, .other)
        XCTAssertTrue(error.message.contains("DELETE http://api.test/a?x=1"), error.message)
        XCTAssertEqual(error.url, "http://api.test/a?x=1")
    }

    func test_dataThatIsNotAnArchiveIsABadResponseError() {
        let cases = ["not json at all", #"{"entries": []}"#, #"{"log": {"entries": [{"request": {"method": "GET"}}]}}"#,
                     #"{"log": {"entries": [{"request": {"method": "GET", "url": "/relative"}, "response": {"status": 200}}]}}"#,
                     #"{"log": {"entries": [{"request": {"method": "GET", "url": "http://a.test/"}, "response": {"status": 1e300}}]}}"#,
                     #"{"log": {"entries": [{"request": {"method": "GET", "url": "http://a.test/"}, "response": {"status": 200.5}}]}}"#]
        for text in cases {
            XCTAssertThrowsError(try HTTPArchiveEngine(data: Data(text.utf8)), text) { error in
                let error = error as? HTTPTransportError
                XCTAssertEqual(error?.code, .badResponse, text)
                XCTAssertTrue(error?.message.contains("is not an HTTP archive (HAR 1.2)") == true, error?.message ?? "")
            }
        }
    }

    /// An archive of one `GET http://api.test/a` entry whose response has `headers` and `content`.
    private func archive(headers: [[String: String]], content: [String: Any]) throws -> Data {
        let entry: [String: Any] = [
            "request": ["method": "GET", "url": "http://api.test/a"],
            "response": ["status": 200, "headers": headers, "content": content],
        ]
        return try JSONSerialization.data(withJSONObject: ["log": ["entries": [["request": ["method": "GET", "url": "http://api.test/ok"],
                                                                                "response": ["status": 204]], entry]]])
    }

    private func assertRefusedAtLoad(_ data: Data, mentioning detail: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try HTTPArchiveEngine(data: data), file: file, line: line) { error in
            let error = error as? HTTPTransportError
            XCTAssertEqual(error?.code, .badResponse, file: file, line: line)
            let message = error?.message ?? ""
            XCTAssertTrue(message.contains("entry 1 (GET http://api.test/a)") && message.contains(detail), message,
                          file: file, line: line)
        }
    }

    func test_aResponseHeaderWithALineBreakOrNULIsRefusedAtLoadNamingTheEntry() throws {
        let text = ["mimeType": "text/plain", "text": "a"]
        for value in ["a\r\nSet-Cookie: planted=1", "a\nb", "a\rb", "a\u{0}b"] {
            assertRefusedAtLoad(try archive(headers: [["name": "X-Note", "value": value]], content: text),
                                mentioning: "\"X-Note\" whose name or value holds CR, LF or NUL")
        }
        for name in ["X-Note\r\nSet-Cookie", "X-Note\n", "X-Note\u{0}"] {
            assertRefusedAtLoad(try archive(headers: [["name": name, "value": "1"]], content: text),
                                mentioning: "whose name or value holds CR, LF or NUL")
        }
    }

    func test_theRecorderLeavesOutHeadersTheEngineWouldRefuse_soItsArchivesLoad() throws {
        let recorder = HTTPArchiveRecorder()
        let engine = StubEngine { RawResponse(request: $0, statusCode: .ok, headers: HTTPHeaders([
            .init(name: "X-Bad", value: "a\r\nb"), .init(name: "X-Good", value: "1")])) }
        _ = HTTPTransport(session: Session(engine: engine), responseInterceptors: [recorder])
            .send(request: HTTPRequest(endpoint: "http://api.test/a"))
        let replay = HTTPTransport(session: Session(engine: try HTTPArchiveEngine(data: recorder.archiveData())))
        let response = try sendOK(replay, HTTPRequest(endpoint: "http://api.test/a"))
        XCTAssertEqual(response.rawHeaders.fields.map(\.name), ["X-Good"])
    }

    func test_contentThatIsNotBase64IsRefusedAtLoadNotReplayedAsAnEmptyBody() throws {
        for text in ["!!!not base64!!!", "QUJD#REVG", "QUJD-_"] {
            assertRefusedAtLoad(try archive(headers: [], content: ["mimeType": "image/png", "text": text, "encoding": "base64"]),
                                mentioning: "not valid base64")
        }
    }

    func test_base64WrappedOverLinesStillLoads() throws {
        let data = try archive(headers: [["name": "X-Note", "value": "tab\tok"]],
                               content: ["mimeType": "image/png", "text": "QUJD\nREVG", "encoding": "base64"])
        let transport = HTTPTransport(session: Session(engine: try HTTPArchiveEngine(data: data)))
        let response = try sendOK(transport, HTTPRequest(endpoint: "http://api.test/a"))
        XCTAssertEqual(response.body, Data("ABCDEF".utf8))
        XCTAssertEqual(response.header(named: "X-Note"), "tab\tok")
    }

    func test_aMissingFileIsAFileIOError() {
        let file = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString).har")
        XCTAssertThrowsError(try HTTPArchiveEngine(contentsOf: file)) { error in
            XCTAssertEqual((error as? HTTPTransportError)?.code, .fileIO)
            XCTAssertTrue((error as? HTTPTransportError)?.message.contains(file.path) == true)
        }
    }

    func test_aRecordedFailureFailsAgainWithItsCode() throws {
        let recorder = HTTPArchiveRecorder()
        let url = "http://127.0.0.1:\(TestServer.closedPort())/down"
        _ = HTTPTransport(responseInterceptors: [recorder]).send(request: HTTPRequest(endpoint: url, timeout: 5))
        let replay = HTTPTransport(session: Session(engine: try HTTPArchiveEngine(data: recorder.archiveData())))
        XCTAssertEqual(replay.send(request: HTTPRequest(endpoint: url)).error?.code, .cannotConnect)
    }

    func test_redirectHopsReplayFromTheirOwnEntries() throws {
        let recorder = HTTPArchiveRecorder()
        let live = HTTPTransport(responseInterceptors: [recorder])
        _ = try sendOK(live, HTTPRequest(endpoint: server.http + "/redirect/2"))
        XCTAssertEqual(recorder.entryCount, 3)

        let replay = HTTPTransport(session: Session(engine: try HTTPArchiveEngine(data: recorder.archiveData())))
        let response = try sendOK(replay, HTTPRequest(endpoint: server.http + "/redirect/2"))
        XCTAssertEqual(response.metrics.redirectCount, 2)
    }

    func test_loadsAChromeExport() throws {
        let transport = HTTPTransport(session: Session(engine: try HTTPArchiveEngine(contentsOf: fixtureURL("chrome-export.har"))))
        let page = try transport.send(request: HTTPRequest(endpoint: "https://shop.example.com/")).get()
        XCTAssertTrue(page.getString()?.hasPrefix("<!doctype html>") == true)
        XCTAssertEqual(page.metrics.httpVersion, "2")
        XCTAssertEqual(page.metrics.remoteAddress, "2606:4700::6812:1b2c")

        let cart = try transport.send(request: HTTPRequest(endpoint: "https://shop.example.com/api/cart?view=full&currency=EUR")).get()
        XCTAssertEqual(try cart.getJSONDictionary()?["total"] as? String, "19.90")

        let image = try transport.send(request: HTTPRequest(endpoint: "https://shop.example.com/img/dot.png")).get()
        XCTAssertEqual(image.body?.count, 70)
        XCTAssertEqual(image.body?.prefix(4), Data([0x89, 0x50, 0x4E, 0x47]))

        let added = HTTPRequest(httpMethod: .post, endpoint: "https://shop.example.com/api/cart/items")
            .with(parameters: ["sku": "MUG-WHITE", "qty": 2], encoding: .json)
        XCTAssertEqual(transport.send(request: added).value?.httpStatus, .created)

        // No content.text: an empty body.
        let font = try transport.send(request: HTTPRequest(endpoint: "https://shop.example.com/static/inter.woff2")).get()
        XCTAssertEqual(font.body, Data())

        // Status 0 with Chrome's `_error`: a failure carrying that text.
        let blocked = try XCTUnwrap(transport.send(request: HTTPRequest(endpoint: "https://tracker.example.net/pixel.gif?e=pageview")).error)
        XCTAssertEqual(blocked.code, .other)
        XCTAssertTrue(blocked.message.contains("net::ERR_BLOCKED_BY_CLIENT"), blocked.message)
    }

    func test_loadsAFirefoxExport_redirectIncluded() throws {
        let engine = try HTTPArchiveEngine(contentsOf: fixtureURL("firefox-export.har"))
        let transport = HTTPTransport(session: Session(engine: engine))
        let login = HTTPRequest(httpMethod: .post, endpoint: "https://shop.example.com/login")
            .with(parameters: ["user": "jane", "password": "x"], encoding: .form)
        let response = try transport.send(request: login).get()
        XCTAssertEqual(response.request.url.absoluteString, "https://shop.example.com/account")
        XCTAssertEqual(response.getString(), "Welcome, Jane")
        XCTAssertEqual(response.metrics.redirectCount, 1)
    }

    func test_copiesShareWhichEntriesWereUsed() throws {
        let engine = try HTTPArchiveEngine(data: Data(archive([("GET", "http://api.test/once", 200, "once")]).utf8))
        let first = HTTPTransport(session: Session(engine: engine))
        let second = HTTPTransport(session: Session(engine: engine))
        XCTAssertEqual(first.send(request: HTTPRequest(endpoint: "http://api.test/once")).value?.getString(), "once")
        XCTAssertEqual(second.send(request: HTTPRequest(endpoint: "http://api.test/once")).error?.code, .other)
    }
}
