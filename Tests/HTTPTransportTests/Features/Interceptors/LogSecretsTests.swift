import Foundation
import HTTPTransport
import Logging
import XCTest

/// No secret reaches a record the library logs, at any level, nor `curlCommand()`: requests
/// carrying secrets in every place against the local server, whose `/leaf/secrets` answers
/// with secrets in every place too (see Tests/Server/README.md).
final class LogSecretsTests: XCTestCase {
    /// What the requests below carry.
    private static let requestSecrets = [
        "REQ-USERTOKEN", "REQ-PASSWORD", "REQ-AMZSIG", "REQ-AMZCRED", "REQ-AMZTOKEN", "REQ-SIG", "REQ-KEY",
        "REQ-REFRESH", "REQ-CODE", "REQ-AUTH", "REQ-BEARER", "REQ-COOKIE", "REQ-APIKEY-HEADER", "REQ-AMZ-HEADER",
        "REQ-JSON-APIKEY", "REQ-JSON-API_KEY", "REQ-JSON-ACCESS", "REQ-JSON-CLIENT", "REQ-JSON-ID", "REQ-JSON-PRIVATE",
        "REQ-JSON-PASSWD", "REQ-FORM-CODE", "REQ-FORM-TOKEN",
    ]
    /// What `/leaf/secrets` answers with.
    private static let responseSecrets = [
        "LEAF-LOCATION-TOKEN", "LEAF-CL-PASS", "LEAF-CL-SIG", "LEAF-LINK-SIG", "LEAF-LINK-AUTH",
        "LEAF-REFRESH-CODE", "LEAF-SET-COOKIE", "LEAF-RESPONSE-AMZ", "LEAF-RESPONSE-KEY", "LEAF-BODY-ACCESS",
        "LEAF-BODY-APIKEY", "LEAF-BODY-CLIENT", "LEAF-BODY-ID", "LEAF-BODY-PRIVATE", "LEAF-BODY-PASSWD", "LEAF-BODY-SIG",
    ]

    private var secretQuery: String {
        "X-Amz-Signature=REQ-AMZSIG&X-Amz-Credential=REQ-AMZCRED&X-Amz-Security-Token=REQ-AMZTOKEN&sig=REQ-SIG"
            + "&key=REQ-KEY&refresh_token=REQ-REFRESH&code=REQ-CODE&auth=REQ-AUTH&page=2"
    }

    /// Requests with a secret in every place: user info, query, headers, JSON and form bodies.
    private var requests: [HTTPRequest] {
        let port = server.ports["http"] ?? 0
        let json = HTTPRequest(httpMethod: .post, endpoint: "http://REQ-USERTOKEN@127.0.0.1:\(port)/leaf/secrets?" + secretQuery)
            .with(bearerToken: "REQ-BEARER")
            .with(cookieName: "sid", value: "REQ-COOKIE")
            .with(header: "X-Api-Key", value: "REQ-APIKEY-HEADER")
            .with(header: "X-Amz-Security-Token", value: "REQ-AMZ-HEADER")
            .with(parameters: ["apiKey": "REQ-JSON-APIKEY", "api_key": "REQ-JSON-API_KEY", "accessToken": "REQ-JSON-ACCESS",
                               "nested": ["clientSecret": "REQ-JSON-CLIENT", "id_token": "REQ-JSON-ID"],
                               "list": [["private_key": "REQ-JSON-PRIVATE", "passwd": "REQ-JSON-PASSWD"]], "user": "bob"],
                  encoding: .json)
        let form = HTTPRequest(httpMethod: .post, endpoint: "http://user:REQ-PASSWORD@127.0.0.1:\(port)/leaf/secrets?status=400")
            .with(parameters: ["code": "REQ-FORM-CODE", "token": "REQ-FORM-TOKEN", "user": "bob"], encoding: .form)
        let refused = HTTPRequest(endpoint: "http://user:REQ-PASSWORD@127.0.0.1:\(TestServer.closedPort())/x?" + secretQuery)
        return [json, form, refused]
    }

    func testNoSecretReachesAnyRecordAtAnyLevel() {
        let swiftLogLevels = Logger.Level.allCases
        var combination = 0
        for requestLevel in LogRequestInterceptor.LogLevel.allCases {
            for responseLevel in LogResponseInterceptor.LogLevel.allCases {
                let capture = LogCapture()
                let level = swiftLogLevels[combination % swiftLogLevels.count]
                combination += 1
                let transport = HTTPTransport(
                    requestInterceptors: [LogRequestInterceptor(logLevel: requestLevel, logger: capture.logger, level: level)],
                    responseInterceptors: [LogResponseInterceptor(logLevel: responseLevel, logger: capture.logger, level: level),
                                           ClarifyErrorInterceptor()])
                for request in requests { _ = transport.send(request: request) }
                let text = capture.records.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
                assertNoSecret(in: text, "request \(requestLevel), response \(responseLevel)")
                let expected = (requestLevel == .nothing ? 0 : 3) + (responseLevel == .nothing ? 0 : 3)
                XCTAssertEqual(capture.records.count, expected, "request \(requestLevel), response \(responseLevel)")
            }
        }
    }

    func testResponseHeadersAndBodyShowTheirNonSecretParts() throws {
        let capture = LogCapture()
        let transport = HTTPTransport(responseInterceptors: [LogResponseInterceptor(logLevel: .everything, logger: capture.logger)])
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/leaf/secrets"))
        let text = try XCTUnwrap(capture.records.first?.message)
        for shown in ["Location: /next?token=<redacted>&page=2", "Link: <https://cdn.example.test/a?sig=<redacted>>; rel=next",
                      "Refresh: 0; url=/r?code=<redacted>", "X-Api-Key: <redacted>", #""ok":true"#] {
            XCTAssertTrue(text.contains(shown), "\(shown) missing in\n\(text)")
        }
        assertNoSecret(in: text, "response at .everything")
    }

    func testCurlCommandShowsNoSecret() throws {
        for request in requests {
            assertNoSecret(in: request.curlCommand(), "curlCommand of \(request.endpoint)")
            assertNoSecret(in: try request.resolve().curlCommand(), "resolved curlCommand")
        }
        let unbuildable = HTTPRequest(endpoint: "ftp://user:REQ-PASSWORD@files.example/?token=REQ-KEY")
        let comment = unbuildable.curlCommand()
        XCTAssertTrue(comment.hasPrefix("# cannot build request: "), comment)
        assertNoSecret(in: comment, "curlCommand of an invalid URL")
    }

    func testSecurityReporterRecordsShowNoSecret() throws {
        let capture = LogCapture(label: "HTTPTransport.Security")
        let ca = server.certificates.appendingPathComponent("ca.pem")
        let security = Security(certificates: [
            TrustPolicyManager.Certificate(host: "localhost", fingerprint: .debug),
            TrustPolicyManager.Certificate(host: "127.0.0.1", fingerprint: .disable),
        ], trustedRootCertificates: ca, logger: capture.logger)
        let transport = HTTPTransport(security: security)
        let port = server.ports["https"] ?? 0
        for host in ["localhost", "127.0.0.1"] {
            _ = transport.send(request: HTTPRequest(endpoint: "https://REQ-USERTOKEN:REQ-PASSWORD@\(host):\(port)/leaf/secrets?"
                + secretQuery))
        }
        XCTAssertGreaterThanOrEqual(capture.records.count, 2, "\(capture.records)")
        assertNoSecret(in: capture.records.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n"), "Security logs")
    }

    private func assertNoSecret(in text: String, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        for secret in Self.requestSecrets + Self.responseSecrets where text.contains(secret) {
            XCTFail("\(context): \(secret) leaked into\n\(text)", file: file, line: line)
        }
    }
}
