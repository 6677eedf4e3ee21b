import Foundation
import HTTPTransport
import XCTest

// The snippets of HTTPTransport.docc/Recording.md, verbatim, so that they keep compiling.
// `recordFlow` is only compiled: it expects a login service on 127.0.0.1:8080.

private func recordFlow(to harFile: URL) throws {
    let recorder = HTTPArchiveRecorder()
    let transport = HTTPTransport(responseInterceptors: [ClarifyErrorInterceptor(), recorder])
    let base = HTTPRequest(endpoint: "http://127.0.0.1:8080")
    let login = HTTPRequest(httpMethod: .post, endpoint: "/login", base: base)
        .with(parameters: ["user": "jane", "password": "secret"], encoding: .json)
    let token = try transport.send(request: login).get().getJSONDictionary()?["token"] as? String ?? ""
    _ = transport.send(request: HTTPRequest(endpoint: "/orders", base: base).with(bearerToken: token))
    try recorder.write(to: harFile)
    print("\(recorder.entryCount) exchanges recorded")
}

private let guideRecorder = HTTPArchiveRecorder(redaction: .default.hiding(headers: ["X-CSRF-Token"], bodyFields: ["pass"]))

private func replayFlow(from harFile: URL) throws -> HTTPTransport {
    let engine = try HTTPArchiveEngine(contentsOf: harFile)
    return HTTPTransport(session: Session(engine: engine))
}

private func loadArchive(_ data: Data) -> HTTPArchiveEngine? {
    do {
        return try HTTPArchiveEngine(data: data)
    } catch let error as HTTPTransportError {
        print(error.code, error.message)   // badResponse The data is not an HTTP archive (HAR 1.2): …
        return nil
    } catch {
        return nil
    }
}

final class RecordingGuideTests: XCTestCase {
    func test_guideSnippetsRun() throws {
        _ = recordFlow(to:)
        XCTAssertTrue(guideRecorder.redaction.hidesHeader("x-csrf-token"))
        XCTAssertTrue(guideRecorder.redaction.hidesField("pass"))
        let transport = try replayFlow(from: fixtureURL("firefox-export.har"))
        XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: "https://shop.example.com/account")).value?.getString(),
                       "Welcome, Jane")
        XCTAssertNil(loadArchive(Data("<html>".utf8)))
        XCTAssertNotNil(loadArchive(try Data(contentsOf: fixtureURL("chrome-export.har"))))
    }
}
