import Foundation
import HTTPTransport
import XCTest

/// What `HTTPArchiveRecorder` writes is HAR 1.2, checked field by field (`HARSpecification`)
/// over every kind of exchange: query, cookies, JSON, form, multipart and binary bodies, a
/// redirect, a failed status, a connection failure, a reused connection.
final class HTTPArchiveConformanceTests: XCTestCase {
    func test_everyKindOfExchangeIsRecordedAsHAR12() throws {
        let recorder = HTTPArchiveRecorder()
        let transport = HTTPTransport(responseInterceptors: [recorder])
        let base = HTTPRequest(endpoint: server.http)
        let requests: [any HTTPRequestEnvelope] = [
            HTTPRequest(endpoint: "/json?b=2&a=1", base: base).with(cookieName: "theme", value: "dark"),
            HTTPRequest(endpoint: "/json", base: base),  // the same connection again
            HTTPRequest(endpoint: "/headers/multi", base: base),
            HTTPRequest(httpMethod: .post, endpoint: "/upload", base: base).with(parameters: ["password": "p", "n": 1], encoding: .json),
            HTTPRequest(httpMethod: .post, endpoint: "/upload", base: base).with(parameters: ["a": "b c"], encoding: .form),
            DataUploadHTTPRequest(endpoint: server.http + "/upload", data: Data([0, 1, 2, 255])),
            FileUploadHTTPRequest(endpoint: server.http + "/upload",
                                  fileMultipart: FileMultipart(data: Data("x".utf8), partName: "f", fileName: "f.txt", mimeType: "text/plain")),
            HTTPRequest(endpoint: "/bytes/64", base: base),
            HTTPRequest(endpoint: "/redirect/1", base: base),
            HTTPRequest(endpoint: "/status/500", base: base),
            HTTPRequest(endpoint: "http://127.0.0.1:\(TestServer.closedPort())/", timeout: 5),
        ]
        for request in requests { _ = transport.send(request: request, control: TransferControl()) }
        XCTAssertEqual(recorder.entryCount, requests.count + 1)  // the redirect is two hops

        let data = try recorder.archiveData()
        let violations = try HARSpecification.violations(of: data)
        XCTAssertEqual(violations, [], String(decoding: data, as: UTF8.self))
        let entries = try archiveEntries(recorder)
        XCTAssertEqual(entries[1].timings.dns, -1, "a reused connection has no DNS phase")
        XCTAssertEqual(entries[1].connection, entries[0].connection, "one connection, one id")
        XCTAssertEqual(entries[2].response.cookies.count, 2)
        XCTAssertEqual(entries[6].request.postData?.params?.first?.name, "f")
        try assertHaralyzerReads(data)
    }

    /// scripts/check_har.py reads every field haralyzer (from PyPI; scripts/setup.sh installs it)
    /// offers, the log's `browser` and each entry's page included.
    private func assertHaralyzerReads(_ data: Data) throws {
        let file = try temporaryDirectory("har").appendingPathComponent("recording.har")
        try data.write(to: file)
        let script = TestServer.repositoryRoot.appendingPathComponent("scripts/check_har.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, text)
    }

    func test_theSpecificationCheckFindsWhatIsWrong() throws {
        let document = #"""
        {"log": {"version": "1.1", "creator": {"name": "x"}, "entries": [{"startedDateTime": "yesterday", "time": 5,
         "request": {"method": "GET", "url": "/relative", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                     "queryString": [], "headersSize": -1, "bodySize": 1.5, "extra": 1},
         "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                      "content": {"size": 0, "mimeType": "", "encoding": "gzip"}, "headersSize": -1, "bodySize": -1},
         "cache": {}, "timings": {"send": 0, "wait": -1, "receive": 1, "dns": -2}}]}}
        """#
        let violations = try HARSpecification.violations(of: Data(document.utf8))
        for expected in [".log.version: 1.1", ".log.creator.version: missing", ".startedDateTime: not of kind isoDate",
                         ".request.url: not of kind absoluteURL", ".request.bodySize: not of kind integer",
                         ".request.extra: not a HAR 1.2 field", ".response.redirectURL: missing", ".content.encoding: gzip",
                         ".timings.wait: -1", ".timings.dns: -2", ".time: 5.0 is not the sum"] {
            XCTAssertTrue(violations.contains { $0.contains(expected) }, "\(expected) not in \(violations)")
        }
    }
}
