import Foundation
import HTTPTransport
import XCTest

/// What `HTTPArchiveRecorder` records: one entry per hop, failures too, secrets hidden by the log
/// rules, binary bodies in base64, figures from the metrics; and how it writes the file.
final class HTTPArchiveRecorderTests: XCTestCase {
    func test_recordsOneEntryPerHop_redirectResponsesIncluded() throws {
        let recorder = HTTPArchiveRecorder()
        let engine = StubEngine { request in
            request.url.path == "/start"
                ? RawResponse(request: request, statusCode: .found, headers: ["Location": "/next"])
                : RawResponse(request: request, statusCode: .ok, headers: ["Content-Type": "text/plain"], data: Data("done".utf8))
        }
        let transport = HTTPTransport(session: Session(engine: engine), responseInterceptors: [recorder])
        _ = try transport.send(request: HTTPRequest(endpoint: "http://api.test/start")).get()

        let entries = try archiveEntries(recorder)
        XCTAssertEqual(recorder.entryCount, 2)
        XCTAssertEqual(entries.map { $0.request.url }, ["http://api.test/start", "http://api.test/next"])
        XCTAssertEqual(entries.map { $0.response.status }, [302, 200])
        XCTAssertEqual(entries[0].response.redirectURL, "/next")
        XCTAssertEqual(entries[1].response.content.text, "done")
    }

    func test_recordsAFailureWithoutResponse_statusZeroAndTheError() throws {
        let recorder = HTTPArchiveRecorder()
        let transport = HTTPTransport(responseInterceptors: [recorder])
        let url = "http://127.0.0.1:\(TestServer.closedPort())/nothing"
        XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: url, timeout: 5)).error?.code, .cannotConnect)

        let entry = try XCTUnwrap(archiveEntries(recorder).first)
        XCTAssertEqual(entry.response.status, 0)
        XCTAssertEqual(entry.response.statusText, "")
        XCTAssertEqual(entry.response.errorCode, "cannotConnect")
        XCTAssertFalse(entry.response.error?.isEmpty ?? true)
        XCTAssertEqual(entry.request.httpVersion, "HTTP/1.1", "readers refuse an empty version")
        XCTAssertEqual(entry.response.httpVersion, "HTTP/1.1")
    }

    func test_namesTheBrowserAndOnePageThatEveryEntryBelongsTo() throws {
        let recorder = HTTPArchiveRecorder()
        let transport = HTTPTransport(session: Session(engine: StubEngine { RawResponse(request: $0, statusCode: .ok) }),
                                      responseInterceptors: [recorder])
        for path in ["a", "b"] { _ = transport.send(request: HTTPRequest(endpoint: "http://api.test/" + path)) }

        let log = try XCTUnwrap((try JSONSerialization.jsonObject(with: recorder.archiveData()) as? [String: Any])?["log"]
            as? [String: Any])
        let browser = try XCTUnwrap(log["browser"] as? [String: Any])
        XCTAssertEqual(browser["name"] as? String, "HTTPTransport")
        XCTAssertEqual(browser["version"] as? String, HTTPTransport.version)
        let pages = try XCTUnwrap(log["pages"] as? [[String: Any]])
        XCTAssertEqual(pages.count, 1)
        let entries = try XCTUnwrap(log["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.compactMap { $0["pageref"] as? String }, [pages[0]["id"] as? String, pages[0]["id"] as? String])
        XCTAssertEqual(pages[0]["startedDateTime"] as? String, entries.compactMap { $0["startedDateTime"] as? String }.min())
    }

    func test_recordsFailedStatusesToo() throws {
        let recorder = HTTPArchiveRecorder()
        let transport = HTTPTransport(session: Session(engine: StubEngine { RawResponse(request: $0, statusCode: .notFound) }),
                                      responseInterceptors: [recorder])
        XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: "http://api.test/missing")).error?.code, .httpStatus)
        XCTAssertEqual(try archiveEntries(recorder).first?.response.status, 404)
    }

    func test_hidesSecretsByTheLogRules() throws {
        let recorder = HTTPArchiveRecorder(redaction: .default.hiding(headers: ["X-CSRF-Token"]))
        let engine = StubEngine { request in
            RawResponse(request: request, statusCode: .ok,
                        headers: ["Content-Type": "application/json", "Set-Cookie": "SESS1=SECRET-COOKIE; Path=/; HttpOnly",
                                  "Location": "/next?token=SECRET-LOCATION"],
                        data: Data(#"{"access_token":"SECRET-BODY","user":"jane"}"#.utf8))
        }
        let transport = HTTPTransport(session: Session(engine: engine), responseInterceptors: [recorder])
        let request = HTTPRequest(httpMethod: .post, endpoint: "https://jane:SECRET-PASSWORD@api.test/login?token=SECRET-QUERY&page=2")
            .with(header: "Authorization", value: "Bearer SECRET-BEARER")
            .with(header: "X-CSRF-Token", value: "SECRET-CSRF")
            .with(header: "Cookie", value: "SESS1=SECRET-SENT-COOKIE; theme=dark")
            .with(parameters: ["password": "SECRET-JSON", "name": "jane"], encoding: .json)
        _ = try transport.send(request: request).get()

        let text = String(decoding: try recorder.archiveData(), as: UTF8.self)
        XCTAssertFalse(text.contains("SECRET"), text)
        let entry = try XCTUnwrap(archiveEntries(recorder).first)
        XCTAssertEqual(entry.request.url, "https://jane:<redacted>@api.test/login?token=<redacted>&page=2")
        XCTAssertEqual(entry.request.queryString, [.init(name: "token", value: "<redacted>"), .init(name: "page", value: "2")])
        XCTAssertEqual(entry.request.header("Authorization"), "<redacted>")
        XCTAssertEqual(entry.request.header("Cookie"), "SESS1=<redacted>; theme=<redacted>")
        XCTAssertEqual(entry.request.cookies.map(\.name), ["SESS1", "theme"])
        XCTAssertEqual(entry.request.postData?.text, #"{"name":"jane","password":"<redacted>"}"#)
        XCTAssertEqual(entry.response.header("Set-Cookie"), "SESS1=<redacted>; Path=/; HttpOnly")
        XCTAssertEqual(entry.response.cookies.first?.httpOnly, true)
        XCTAssertEqual(entry.response.redirectURL, "/next?token=<redacted>")
        XCTAssertTrue(entry.response.content.text?.contains(#""user":"jane""#) == true)
    }

    func test_hidesSecretFormFields() throws {
        let recorder = HTTPArchiveRecorder()
        let transport = HTTPTransport(session: Session(engine: StubEngine { RawResponse(request: $0, statusCode: .ok) }),
                                      responseInterceptors: [recorder])
        let request = HTTPRequest(httpMethod: .post, endpoint: "http://api.test/token")
            .with(parameters: ["client_secret": "SECRET-FORM", "grant_type": "client_credentials"], encoding: .form)
        _ = try transport.send(request: request).get()

        let postData = try XCTUnwrap(archiveEntries(recorder).first?.request.postData)
        XCTAssertEqual(postData.text, "client_secret=<redacted>&grant_type=client_credentials")
        XCTAssertEqual(postData.params?.map(\.value), ["<redacted>", "client_credentials"])
    }

    func test_mediaBodiesAreBase64() throws {
        let recorder = HTTPArchiveRecorder()
        let binary = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF, 0xFE, 0x10])
        let engine = StubEngine { RawResponse(request: $0, statusCode: .ok, headers: ["Content-Type": "image/png"], data: binary) }
        let transport = HTTPTransport(session: Session(engine: engine), responseInterceptors: [recorder])
        _ = try transport.send(request: DataUploadHTTPRequest(endpoint: "http://api.test/upload",
                                                              headers: ["Content-Type": "image/png"], data: binary)).get()

        let entry = try XCTUnwrap(archiveEntries(recorder).first)
        XCTAssertEqual(entry.response.content.encoding, "base64")
        XCTAssertEqual(entry.response.content.text.flatMap { Data(base64Encoded: $0) }, binary)
        XCTAssertEqual(entry.response.content.size, binary.count)
        XCTAssertEqual(entry.request.postData?.encoding, "base64")
        XCTAssertEqual(entry.request.postData.flatMap { Data(base64Encoded: $0.text) }, binary)
    }

    func test_figuresComeFromTheMetrics() throws {
        let recorder = HTTPArchiveRecorder()
        let transport = HTTPTransport(responseInterceptors: [recorder])
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/json"))

        let entry = try XCTUnwrap(archiveEntries(recorder).first)
        XCTAssertEqual(entry.serverIPAddress, "127.0.0.1")
        XCTAssertEqual(entry.connection, String(response.metrics.localPort))
        XCTAssertEqual(entry.request.httpVersion, "HTTP/1.1")
        XCTAssertEqual(entry.response.httpVersion, "HTTP/1.1")
        let timings = entry.timings
        for phase in [timings.send, timings.wait, timings.receive] { XCTAssertGreaterThanOrEqual(phase, 0) }
        let sum = [timings.blocked, timings.dns, timings.connect, timings.send, timings.wait, timings.receive]
            .compactMap { $0 }.filter { $0 > 0 }.reduce(0, +)
        XCTAssertEqual(entry.time, sum, accuracy: 0.01)
        XCTAssertEqual(entry.time, response.metrics.total * 1000, accuracy: 0.01)
        XCTAssertNotNil(entry.startedDateTime.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression),
                        entry.startedDateTime)
    }

    func test_writesAtomicallyWithMode0600() throws {
        let directory = try temporaryDirectory("har")
        let file = directory.appendingPathComponent("session.har")
        try Data("old".utf8).write(to: file)
        let recorder = HTTPArchiveRecorder()
        let transport = HTTPTransport(session: Session(engine: StubEngine { RawResponse(request: $0, statusCode: .ok) }),
                                      responseInterceptors: [recorder])
        _ = transport.send(request: HTTPRequest(endpoint: "http://api.test/"))
        try recorder.write(to: file)

        XCTAssertEqual(try Data(contentsOf: file), try recorder.archiveData())
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        XCTAssertEqual(permissions, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["session.har"])
    }

    func test_writeToAMissingDirectoryIsAFileIOError() {
        let recorder = HTTPArchiveRecorder()
        let file = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/session.har")
        XCTAssertThrowsError(try recorder.write(to: file)) { error in
            XCTAssertEqual((error as? HTTPTransportError)?.code, .fileIO)
        }
    }

    func test_removeAllForgetsTheEntries() throws {
        let recorder = HTTPArchiveRecorder()
        let transport = HTTPTransport(session: Session(engine: StubEngine { RawResponse(request: $0, statusCode: .ok) }),
                                      responseInterceptors: [recorder])
        _ = transport.send(request: HTTPRequest(endpoint: "http://api.test/"))
        XCTAssertEqual(recorder.entryCount, 1)
        recorder.removeAll()
        XCTAssertEqual(recorder.entryCount, 0)
        XCTAssertEqual(try archiveEntries(recorder).count, 0)
    }

    func test_eightThreadsRecordingAtOnceLoseNoEntry() throws {
        let recorder = HTTPArchiveRecorder()
        let engine = StubEngine { RawResponse(request: $0, statusCode: .ok, data: Data($0.url.path.utf8)) }
        let transport = HTTPTransport(session: Session(engine: engine), responseInterceptors: [recorder])
        let perThread = 50
        let finished = DispatchGroup()
        for thread in 0..<8 {
            finished.enter()
            Thread {
                for index in 0..<perThread {
                    _ = transport.send(request: HTTPRequest(endpoint: "http://api.test/\(thread)/\(index)"))
                    // Readers meanwhile: the count and a whole archive.
                    if index % 10 == 0 { _ = recorder.entryCount }
                    if index == perThread / 2 { _ = try? recorder.archiveData() }
                }
                finished.leave()
            }.start()
        }
        XCTAssertEqual(finished.wait(timeout: .now() + 60), .success)
        let entries = try archiveEntries(recorder)
        XCTAssertEqual(recorder.entryCount, 8 * perThread)
        XCTAssertEqual(Set(entries.map { $0.request.url }).count, 8 * perThread)
        XCTAssertTrue(entries.allSatisfy { $0.request.url.hasSuffix($0.response.content.text ?? "-") })
    }
}
