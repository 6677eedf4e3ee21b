import Foundation
import HTTPTransport
import Logging
import XCTest

/// `LogRequestInterceptor` and `LogResponseInterceptor`, captured with an in-memory swift-log
/// handler (no `LoggingSystem.bootstrap`, which may run only once per process).
final class LoggingTests: XCTestCase {
    // MARK: Secrets

    func testNoSecretLeaksAtDefaultSettings() throws {
        let capture = LogCapture()
        let transport = HTTPTransport(
            requestInterceptors: [LogRequestInterceptor(logLevel: .everything, logger: capture.logger)],
            responseInterceptors: [LogResponseInterceptor(logLevel: .everything, logger: capture.logger)])

        // Request secrets: bearer token, cookie, token query parameter, JSON password.
        // Response secret: the issued token in the JSON body.
        let tokenRequest = HTTPRequest(httpMethod: .post, endpoint: server.http + "/auth/token?access_token=QSECRET&page=2")
            .with(bearerToken: "BSECRET")
            .with(cookieName: "sid", value: "CSECRET")
            .with(parameters: ["user": "bob", "password": "PSECRET", "nested": ["refresh_token": "RSECRET"]],
                  encoding: .json)
        let tokenResponse = try sendOK(transport, tokenRequest)
        let issued = try XCTUnwrap(try tokenResponse.getJSONDictionary()?["token"] as? String)

        // A Set-Cookie secret (the body, which repeats it, is not logged at `.headers`).
        let cookieTransport = HTTPTransport(
            requestInterceptors: [LogRequestInterceptor(logLevel: .everything, logger: capture.logger)],
            responseInterceptors: [LogResponseInterceptor(logLevel: .headers, logger: capture.logger)])
        let sessionResponse = try sendOK(cookieTransport, HTTPRequest(endpoint: server.http + "/session"))
        let sessionID = try XCTUnwrap(try sessionResponse.getJSONDictionary()?["session_id"] as? String)

        let text = capture.records.map(\.message).joined(separator: "\n")
        for secret in ["QSECRET", "BSECRET", "CSECRET", "PSECRET", "RSECRET", issued, sessionID] {
            XCTAssertFalse(text.contains(secret), "\(secret) leaked into the log:\n\(text)")
        }
        XCTAssertTrue(text.contains("Authorization: <redacted>"), text)
        XCTAssertTrue(text.contains("Cookie: <redacted>"), text)
        XCTAssertTrue(text.contains("Set-Cookie: <redacted>"), text)
        XCTAssertTrue(text.contains("access_token=<redacted>&page=2"), text)
        XCTAssertTrue(text.contains(#""password":"<redacted>""#), text)
        XCTAssertTrue(text.contains(#""token":"<redacted>""#), text)
        XCTAssertTrue(text.contains(#""user":"bob""#), text)

        // One record per request and per response, paired by id.
        XCTAssertEqual(capture.records.count, 4, text)
        try assertPaired(capture.records)
    }

    func testDisabledRedactionShowsSecretsAndACustomOneHidesItsOwnNames() throws {
        let capture = LogCapture()
        let transport = HTTPTransport(
            requestInterceptors: [LogRequestInterceptor(logLevel: .headers, logger: capture.logger, redaction: .disabled)],
            responseInterceptors: [LogResponseInterceptor(logLevel: .status, logger: capture.logger)])
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything?token=VISIBLE").with(bearerToken: "SHOWN"))
        let plain = capture.records.map(\.message).joined(separator: "\n")
        XCTAssertTrue(plain.contains("Authorization: Bearer SHOWN"), plain)
        XCTAssertTrue(plain.contains("token=VISIBLE"), plain)

        let extra = LogCapture()
        let custom = HTTPTransport(
            requestInterceptors: [LogRequestInterceptor(logLevel: .headers, logger: extra.logger,
                                                        redaction: LogRedaction(queryParameters: ["sig"]).hiding(headers: ["X-Api-Key"]))],
            responseInterceptors: [])
        _ = try sendOK(custom, HTTPRequest(endpoint: server.http + "/anything?sig=SIG1&token=T1")
            .with(header: "X-Api-Key", value: "KEY1"))
        let text = extra.records.map(\.message).joined(separator: "\n")
        XCTAssertTrue(text.contains("X-Api-Key: <redacted>"), text)
        XCTAssertTrue(text.contains("sig=<redacted>"), text)
        XCTAssertTrue(text.contains("token=T1"), "a replaced query list is the whole list: \(text)")
        XCTAssertFalse(text.contains("KEY1") || text.contains("SIG1"), text)
    }

    // MARK: Records and request ids

    func testOneRecordPerRequestAndResponseSharingAnID() throws {
        let capture = LogCapture()
        let transport = HTTPTransport(
            requestInterceptors: [LogRequestInterceptor(logLevel: .headers, logger: capture.logger, addsRequestIDHeader: true)],
            responseInterceptors: [LogResponseInterceptor(logLevel: .headers, logger: capture.logger)])
        var sentIDs: [String] = []
        for index in 0..<3 {
            let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything/\(index)"))
            let headers = try XCTUnwrap(try echo(response)["headers_dict"] as? [String: String])
            sentIDs.append(try XCTUnwrap(headers["x-request-id"]))
        }
        XCTAssertEqual(capture.records.count, 6)
        let ids = try assertPaired(capture.records)
        XCTAssertEqual(ids, sentIDs, "the id logged is the id sent")
        XCTAssertEqual(Set(ids).count, 3, "every request has its own id")
        for record in capture.records { XCTAssertEqual(record.level, .info) }
        XCTAssertTrue(capture.records[0].message.hasPrefix("→ GET \(server.http)/anything/0 [req \(ids[0])]"),
                      capture.records[0].message)
        XCTAssertTrue(capture.records[1].message.hasPrefix("← 200 OK GET \(server.http)/anything/0 in "),
                      capture.records[1].message)
        XCTAssertTrue(capture.records[1].message.contains(" ms [req \(ids[0])]"), capture.records[1].message)
    }

    func testRedirectHopsAreLoggedEach() throws {
        let capture = LogCapture()
        let transport = HTTPTransport(
            requestInterceptors: [LogRequestInterceptor(logLevel: .url, logger: capture.logger)],
            responseInterceptors: [LogResponseInterceptor(logLevel: .status, logger: capture.logger)])
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/redirect/2"))
        XCTAssertEqual(capture.records.count, 6, capture.records.map(\.message).joined(separator: "\n"))
        let ids = try assertPaired(capture.records)
        XCTAssertEqual(Set(ids).count, 3)
    }

    func testByDefaultNoRequestIDHeaderIsSentAndRecordsStillPair() throws {
        let capture = LogCapture()
        let transport = HTTPTransport(
            requestInterceptors: [LogRequestInterceptor(logLevel: .headers, logger: capture.logger)],
            responseInterceptors: [LogResponseInterceptor(logLevel: .status, logger: capture.logger)])
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything"))
        let headers = try XCTUnwrap(try echo(response)["headers_dict"] as? [String: String])
        XCTAssertNil(headers["x-request-id"])
        XCTAssertNil(response.request.value(forHTTPHeaderField: "X-Request-ID"))
        XCTAssertEqual(capture.records.count, 2)
        let ids = try assertPaired(capture.records)
        XCTAssertEqual(response.request.requestID, ids.first, "the id travels in the request value")
        XCTAssertFalse(capture.records[0].message.contains("X-Request-ID"), capture.records[0].message)
    }

    func testRequestIDIsStoredInTheReturnedRequestAndReadFromTheResponsesRequest() throws {
        let capture = LogCapture()
        let logged = try LogRequestInterceptor(logLevel: .url, logger: capture.logger)
            .intercept(request: RawRequest(url: URL(string: "http://h.example/a")!))
        let id = try XCTUnwrap(logged.requestID)
        XCTAssertEqual(id.count, 16)
        XCTAssertTrue(logged.headers.isEmpty, "nothing is added to what is sent")
        _ = LogResponseInterceptor(logLevel: .status, logger: capture.logger)
            .intercept(response: RawResponse(request: logged, statusCode: .ok))
        XCTAssertEqual(capture.records.map { $0.metadata["request-id"] }, [id, id])
    }

    func testIDGivenByAnEarlierInterceptorIsKept() throws {
        let capture = LogCapture()
        var request = RawRequest(url: URL(string: "http://h.example/a")!)
        request.requestID = "job-7"
        let logged = try LogRequestInterceptor(logLevel: .url, logger: capture.logger, addsRequestIDHeader: true)
            .intercept(request: request)
        XCTAssertEqual(logged.requestID, "job-7")
        XCTAssertEqual(logged.value(forHTTPHeaderField: "X-Request-ID"), "job-7")
        XCTAssertEqual(capture.records.first?.metadata["request-id"], "job-7")
    }

    func testInterleavedRequestsToOneURLKeepTheirOwnIDs() throws {
        let capture = LogCapture()
        let requestLogger = LogRequestInterceptor(logLevel: .url, logger: capture.logger, addsRequestIDHeader: false)
        let responseLogger = LogResponseInterceptor(logLevel: .status, logger: capture.logger)
        let url = URL(string: "http://h.example/same")!
        let first = try requestLogger.intercept(request: RawRequest(url: url))
        let second = try requestLogger.intercept(request: RawRequest(url: url))
        _ = responseLogger.intercept(response: RawResponse(request: first, statusCode: .ok))
        _ = responseLogger.intercept(response: RawResponse(request: second, statusCode: .ok))
        let ids = capture.records.map { $0.metadata["request-id"] ?? "" }
        XCTAssertEqual(ids, [ids[0], ids[1], ids[0], ids[1]])
        XCTAssertNotEqual(ids[0], ids[1])
    }

    func testResponseLoggedOnAnotherThreadKeepsItsRequestID() throws {
        let capture = LogCapture()
        let logged = try LogRequestInterceptor(logLevel: .url, logger: capture.logger, addsRequestIDHeader: false)
            .intercept(request: RawRequest(url: URL(string: "http://h.example/a")!))
        let done = DispatchSemaphore(value: 0)
        let responseLogger = LogResponseInterceptor(logLevel: .status, logger: capture.logger)
        Thread.detachNewThread {
            _ = responseLogger.intercept(response: RawResponse(request: logged, statusCode: .ok))
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(capture.records.count, 2)
        try assertPaired(capture.records)
    }

    func testCustomRequestIDHeaderAndExistingID() throws {
        let capture = LogCapture()
        let transport = HTTPTransport(
            requestInterceptors: [LogRequestInterceptor(logLevel: .url, logger: capture.logger, requestIDHeader: "X-Trace")],
            responseInterceptors: [LogResponseInterceptor(logLevel: .status, logger: capture.logger, requestIDHeader: "X-Trace")])
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything").with(header: "X-Trace", value: "mine-42"))
        XCTAssertEqual(try assertPaired(capture.records), ["mine-42"])
    }

    func testFailureIsLoggedWithTheError() throws {
        let capture = LogCapture()
        let transport = HTTPTransport(
            requestInterceptors: [LogRequestInterceptor(logLevel: .url, logger: capture.logger)],
            responseInterceptors: [LogResponseInterceptor(logLevel: .everything, logger: capture.logger)])
        let closed = HTTPRequest(endpoint: "http://127.0.0.1:\(TestServer.closedPort())/x?password=PW")
        XCTAssertEqual(transport.send(request: closed).error?.code, .cannotConnect)
        let notFound = HTTPRequest(endpoint: server.http + "/status/404")
        XCTAssertEqual(transport.send(request: notFound).error?.httpStatusCode, .notFound)

        XCTAssertEqual(capture.records.count, 4)
        try assertPaired(capture.records)
        let refused = capture.records[1].message
        XCTAssertTrue(refused.hasPrefix("← no response GET http://127.0.0.1:"), refused)
        XCTAssertTrue(refused.contains("failed: cannotConnect: "), refused)
        XCTAssertFalse(refused.contains("PW"), refused)
        let missing = capture.records[3].message
        XCTAssertTrue(missing.hasPrefix("← 404 Not Found GET \(server.http)/status/404 in "), missing)
        XCTAssertTrue(missing.contains("failed: httpStatus"), missing)
        XCTAssertTrue(missing.contains(#""code": "E404""#), missing)
        XCTAssertEqual(capture.records[3].metadata["status"], "404")
    }

    // MARK: Levels and bodies

    func testLevels() throws {
        let capture = LogCapture()
        let silent = HTTPTransport(
            requestInterceptors: [LogRequestInterceptor(logLevel: .nothing, logger: capture.logger)],
            responseInterceptors: [LogResponseInterceptor(logLevel: .nothing, logger: capture.logger)])
        let response = try sendOK(silent, HTTPRequest(endpoint: server.http + "/anything"))
        XCTAssertTrue(capture.records.isEmpty)
        XCTAssertNil((try echo(response)["headers_dict"] as? [String: String])?["x-request-id"])

        // The seed's cook book spelling, with a logger below the records' level.
        let quiet = LogCapture(threshold: .warning)
        let belowThreshold = HTTPTransport(
            requestInterceptors: [LogRequestInterceptor(logLevel: LogRequestInterceptor.LogLevel.url, logger: quiet.logger)],
            responseInterceptors: [LogResponseInterceptor(logLevel: LogResponseInterceptor.LogLevel.everything, logger: quiet.logger)])
        _ = try sendOK(belowThreshold, HTTPRequest(endpoint: server.http + "/anything"))
        XCTAssertTrue(quiet.records.isEmpty)

        let urlOnly = LogCapture()
        let transport = HTTPTransport(
            requestInterceptors: [LogRequestInterceptor(logLevel: .url, logger: urlOnly.logger, level: .debug)],
            responseInterceptors: [LogResponseInterceptor(logLevel: .status, logger: urlOnly.logger, level: .debug)])
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything").with(header: "X-Custom", value: "1"))
        XCTAssertEqual(urlOnly.records.count, 2)
        XCTAssertEqual(urlOnly.records.map(\.level), [.debug, .debug])
        XCTAssertFalse(urlOnly.records.contains { $0.message.contains("\n") }, "no header lines at .url/.status")
    }

    func testHeaderFilter() throws {
        let capture = LogCapture()
        let transport = HTTPTransport(responseInterceptors: [
            LogResponseInterceptor(logLevel: .headers, isFilteringHeaders: true, headerFilter: ["content-type", "Set-Cookie"],
                                   logger: capture.logger),
        ])
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/headers/multi"))
        let lines = try XCTUnwrap(capture.records.first?.message).split(separator: "\n").dropFirst()
        XCTAssertEqual(Array(lines), ["  Content-Type: application/json", "  Set-Cookie: <redacted>", "  Set-Cookie: <redacted>"])
    }

    func testBodiesAreCutAndBinaryIsSummarized() throws {
        let capture = LogCapture()
        let transport = HTTPTransport(
            requestInterceptors: [LogRequestInterceptor(logLevel: .everything, logger: capture.logger, maxBodyLength: 100)],
            responseInterceptors: [LogResponseInterceptor(logLevel: .everything, logger: capture.logger)])
        let long = String(repeating: "é", count: 60) // 120 bytes
        _ = try transport.send(request: DataUploadHTTPRequest(
            endpoint: server.http + "/anything", headers: ["Content-Type": "text/plain"], data: Data(long.utf8))).get()
        let request = capture.records[0].message
        XCTAssertTrue(request.contains("  " + String(repeating: "é", count: 50) + "… (20 more bytes)"), request)

        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/nonutf8"))
        XCTAssertTrue(capture.records[3].message.hasSuffix("\n  <3 bytes of binary data>"), capture.records[3].message)
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/empty"))
        XCTAssertTrue(capture.records[4].message.hasSuffix("\n  (no body)"), capture.records[4].message)
    }

    func testLogSample() throws {
        let capture = LogCapture()
        let transport = HTTPTransport(
            requestInterceptors: [LogRequestInterceptor(logLevel: .everything, logger: capture.logger)],
            responseInterceptors: [LogResponseInterceptor(logLevel: .everything, isFilteringHeaders: true,
                                                          headerFilter: ["Content-Type", "Content-Length"],
                                                          logger: capture.logger)])
        _ = try sendOK(transport, HTTPRequest(httpMethod: .post, endpoint: server.http + "/auth/token?api_key=K")
            .with(bearerToken: "T").with(parameters: ["user": "bob", "password": "hunter2"], encoding: .json))
        for record in capture.records { print("[\(record.level)] \(record.metadata) \(record.message)") }
        XCTAssertEqual(capture.records.count, 2)
    }

    // MARK: Helpers

    /// Checks records alternate request/response with equal ids (message and metadata); returns the ids.
    @discardableResult
    private func assertPaired(_ records: [LogCapture.Record], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        XCTAssertEqual(records.count % 2, 0, file: file, line: line)
        var ids: [String] = []
        for index in stride(from: 0, to: records.count - 1, by: 2) {
            let request = records[index], response = records[index + 1]
            XCTAssertTrue(request.message.hasPrefix("→ "), request.message, file: file, line: line)
            XCTAssertTrue(response.message.hasPrefix("← "), response.message, file: file, line: line)
            let id = try XCTUnwrap(request.metadata["request-id"], file: file, line: line)
            XCTAssertEqual(response.metadata["request-id"], id, file: file, line: line)
            XCTAssertTrue(request.message.contains("[req \(id)]"), request.message, file: file, line: line)
            XCTAssertTrue(response.message.contains("[req \(id)]"), response.message, file: file, line: line)
            ids.append(id)
        }
        return ids
    }
}
