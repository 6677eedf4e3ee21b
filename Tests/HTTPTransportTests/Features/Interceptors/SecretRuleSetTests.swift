import Foundation
import HTTPTransport
import XCTest

/// One rule set decides what is secret for the logs, `curlCommand` and recordings alike: every
/// secret below is checked in all three, and a body the rules cannot read field by field is
/// left out of all three rather than shown.
final class SecretRuleSetTests: XCTestCase {
    /// What a request looks like in each place that shows it: the request log, the cURL
    /// command and the recording (the request through a stub that answers 200).
    private func everyView(of request: some HTTPRequestEnvelope,
                           response: @escaping @Sendable (RawRequest) -> RawResponse = { RawResponse(request: $0, statusCode: .ok) })
        throws -> [String: String] {
        let capture = LogCapture()
        let recorder = HTTPArchiveRecorder()
        let transport = HTTPTransport(
            session: Session(engine: StubEngine(response)),
            requestInterceptors: [LogRequestInterceptor(logLevel: .everything, logger: capture.logger, maxBodyLength: 1 << 30)],
            responseInterceptors: [LogResponseInterceptor(logLevel: .everything, logger: capture.logger), recorder])
        _ = transport.send(request: request, control: TransferControl())
        return ["log": capture.records.map(\.message).joined(separator: "\n"),
                "curl": transport.curlCommand(for: request),
                "recording": String(decoding: try recorder.archiveData(), as: UTF8.self)]
    }

    private func assertNoSecret(_ views: [String: String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(views.count, 3, file: file, line: line)
        for (place, text) in views {
            XCTAssertFalse(text.contains("SECRET"), "\(place): \(text.prefix(2_000))", file: file, line: line)
        }
    }

    func testTheCommonAPIKeyAndTokenHeadersAreSecretEverywhere() throws {
        let names = ["X-Goog-Api-Key", "Private-Token", "X-Vault-Token", "Api-Token", "X-CSRF-Token"]
        var request = HTTPRequest(endpoint: "http://api.test/me")
        for name in names { request = request.with(header: name, value: "SECRET-\(name)") }
        let views = try everyView(of: request)
        assertNoSecret(views)
        for name in names {
            XCTAssertTrue(LogRedaction.default.hidesHeader(name), name)
            XCTAssertTrue(views["curl"]?.contains("\(name): <redacted>") == true, name)
        }
    }

    func testPasswordOTPPinAndCardFieldsAreSecretInBodiesAndURLs() throws {
        let fields = ["pwd", "passwd", "new_password", "otp", "pin", "cvv"]
        let query = fields.map { "\($0)=SECRET-Q-\($0)" }.joined(separator: "&")
        let body = Dictionary(uniqueKeysWithValues: fields.map { ($0, "SECRET-B-\($0)") })
        for encoding in [HTTPRequestParameters.Encoding.json, .form] {
            let request = HTTPRequest(httpMethod: .post, endpoint: "http://api.test/login?user=jane&\(query)")
                .with(parameters: body, encoding: encoding)
            let views = try everyView(of: request)
            assertNoSecret(views)
            XCTAssertTrue(views["curl"]?.contains("user=jane&pwd=<redacted>&passwd=<redacted>") == true, views["curl"] ?? "")
        }
    }

    func testAJSONBodyTooLargeToParseIsLeftOutEverywhere() throws {
        let filler = String(repeating: "x", count: LogRedaction.maximumParsedBodySize)
        let body = Data(#"{"password":"SECRET-LARGE","filler":"\#(filler)"}"#.utf8)
        let request = DataUploadHTTPRequest(httpMethod: .post, endpoint: "http://api.test/upload",
                                            headers: ["Content-Type": "application/json"], data: body)
        let views = try everyView(of: request) { RawResponse(request: $0, statusCode: .ok,
                                                             headers: ["Content-Type": "application/json"], data: body) }
        assertNoSecret(views)
        for (place, text) in views {
            XCTAssertTrue(text.contains("is larger than the \(LogRedaction.maximumParsedBodySize) bytes parsed"), place)
        }
    }

    func testBinaryDataThatIsNotMediaIsLeftOutEverywhere() throws {
        let body = Data("password=SECRET-BINARY ".utf8) + Data([0xFF, 0xFE, 0x00, 0x01])
        let request = DataUploadHTTPRequest(httpMethod: .post, endpoint: "http://api.test/upload", data: body)
        let views = try everyView(of: request) { RawResponse(request: $0, statusCode: .ok,
                                                             headers: ["Content-Type": "application/x-protobuf"], data: body) }
        assertNoSecret(views)
        XCTAssertFalse(views["recording"]?.contains(body.base64EncodedString()) ?? true)
        XCTAssertTrue(views["curl"]?.contains("binary data of type application/octet-stream cannot be redacted") == true,
                      views["curl"] ?? "")
        XCTAssertTrue(views["recording"]?.contains("binary data of type application/x-protobuf cannot be redacted") == true)
    }

    func testBodiesTheRulesCannotReadAreLeftOutAndMediaIsKept() {
        let redaction = LogRedaction.default
        let binary = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
        XCTAssertEqual(redaction.redactBody(binary, contentType: "image/png"), .shown(binary))
        XCTAssertEqual(redaction.redactBody(binary, contentType: "audio/ogg; codecs=opus"), .shown(binary))
        for type in ["application/octet-stream", "application/grpc", "text/plain; charset=utf-16", ""] {
            guard case .omitted = redaction.redactBody(binary, contentType: type) else { return XCTFail(type) }
        }
        guard case .omitted = redaction.redactBody(Data(#"{"password":"SECRET"#.utf8), contentType: "application/json")
        else { return XCTFail("a truncated JSON body is shown") }
        XCTAssertEqual(LogRedaction.disabled.redactBody(binary, contentType: nil), .shown(binary))
        let text = Data("plain text".utf8)
        XCTAssertEqual(redaction.redactBody(text, contentType: "text/plain"), .shown(text))
    }

    func testNewlineDelimitedJSONIsRedactedLineByLine() {
        let body = Data("{\"token\":\"SECRET1\"}\n{\"user\":\"jane\"}\n".utf8)
        XCTAssertEqual(String(decoding: LogRedaction.default.redactedBody(body, contentType: "application/x-ndjson"), as: UTF8.self),
                       "{\"token\":\"<redacted>\"}\n{\"user\":\"jane\"}\n")
    }
}
