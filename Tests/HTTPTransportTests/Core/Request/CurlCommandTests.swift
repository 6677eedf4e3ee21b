import Foundation
import HTTPTransport
import XCTest

/// `curlCommand()` output, checked by running it with /bin/sh and the real `curl` against the
/// local echo route and comparing what the server received with what HTTPTransport sent.
final class CurlCommandTests: XCTestCase {
    /// Text that shells love to misread.
    static let nasty = #"it's a "test" with $HOME, `whoami`, $(id), \backslash, 100% done, ünïcødé 🚀"#

    // MARK: Same exchange through curl

    func testTextBodyHeadersAndQueryMatchWhatTransportSent() throws {
        let body = Self.nasty + "\nsecond line\ttab\n'; exit 1; echo '"
        let request = DataUploadHTTPRequest(
            httpMethod: .post,
            endpoint: server.http + "/anything/curl?q=it%27s%20%24HOME&token=abc&x=1",
            headers: ["X-Nasty": Self.nasty, "Content-Type": "text/plain; charset=utf-8", "X-Empty": ""],
            data: Data(body.utf8))
        let response = try HTTPTransport().send(request: request).get()
        let command = response.request.curlCommand(redactingSecrets: false)
        XCTAssertFalse(command.contains("-X POST"), command)
        XCTAssertTrue(command.hasSuffix("'\(server.http)/anything/curl?q=it%27s%20%24HOME&token=abc&x=1'"), command)
        let viaCurl = try assertSameExchange(response, command: command)
        XCTAssertEqual(viaCurl["body_text"] as? String, body)
        XCTAssertEqual((viaCurl["headers_dict"] as? [String: String])?["x-nasty"].map(Self.utf8FromLatin1), Self.nasty)
    }

    func testTransportCommandIncludesWhatInterceptorsAddAndTheSessionsUserAgent() throws {
        let cookies = CookieStorage()
        let url = try XCTUnwrap(URL(string: server.http + "/anything/jar"))
        cookies.store(setCookieHeaders: ["session=s3cr3t; Path=/"], for: url)
        var configuration = Session.Configuration()
        configuration.userAgent = "Daemon/2.0"
        let transport = HTTPTransport(session: Session(configuration: configuration),
                                      requestInterceptors: [AddCookieInterceptor(cookieProvider: cookies)])
        let request = HTTPRequest(httpMethod: .post, endpoint: server.http + "/anything/jar")
            .with(parameters: ["a": 1], encoding: .json)

        let redacted = transport.curlCommand(for: request)
        XCTAssertTrue(redacted.contains("-H 'Cookie: <redacted>'"), redacted)
        XCTAssertTrue(redacted.contains("-H 'User-Agent: Daemon/2.0'"), redacted)
        XCTAssertTrue(redacted.contains("-H 'Expect:'"), redacted)

        let response = try transport.send(request: request).get()
        let command = transport.curlCommand(for: request, redactingSecrets: false)
        XCTAssertTrue(command.contains("Cookie: session=s3cr3t"), command)
        XCTAssertEqual(command, response.request.curlCommand(redactingSecrets: false, userAgent: "Daemon/2.0"))
        try assertSameExchange(response, command: command)
    }

    func testTransportCommandOfAFailingInterceptorIsAComment() {
        let transport = HTTPTransport(requestInterceptors: [ClosureRequestInterceptor { _ in throw CocoaError(.userCancelled) }])
        let command = transport.curlCommand(for: HTTPRequest(endpoint: server.http + "/get"))
        XCTAssertTrue(command.hasPrefix("# cannot build request: Request interceptor"), command)
    }

    func testJSONBodyWithGETMethod() throws {
        // The cook book's body example: a GET with a JSON body.
        let request = HTTPRequest(endpoint: server.http + "/anything/json")
            .with(parameters: ["name": Self.nasty, "n": 5], encoding: .json)
            .with(header: "X-Trace", value: "a b  c")
        let response = try sendOK(HTTPTransport(), request)
        let command = response.request.curlCommand(redactingSecrets: false)
        XCTAssertTrue(command.contains("-X GET"), command)
        let viaCurl = try assertSameExchange(response, command: command)
        XCTAssertEqual((viaCurl["json"] as? [String: Any])?["name"] as? String, Self.nasty)
    }

    func testBinaryBodyIsPipedThroughPrintf() throws {
        var bytes = Data([0, 1, 2, 0x25, 0x5C, 0x27, 0x0A, 0x0D, 0x7F, 0x80, 0xFE, 0xFF])
        bytes.append(contentsOf: (0...255).map { UInt8($0) })
        let request = DataUploadHTTPRequest(httpMethod: .put, endpoint: server.http + "/anything/binary",
                                            headers: ["Content-Type": "application/octet-stream"], data: bytes)
        let response = try HTTPTransport().send(request: request).get()
        let command = response.request.curlCommand(redactingSecrets: false)
        XCTAssertTrue(command.hasPrefix("printf '"), command)
        XCTAssertTrue(command.contains("--data-binary @-"), command)
        XCTAssertTrue(command.contains("-X PUT"), command)
        let viaCurl = try assertSameExchange(response, command: command)
        XCTAssertEqual(viaCurl["body_base64"] as? String, bytes.base64EncodedString())
    }

    func testBodyStartingWithAtSignIsNotReadAsAFile() throws {
        let request = DataUploadHTTPRequest(endpoint: server.http + "/anything/at", data: Data("@/etc/passwd".utf8))
        let response = try HTTPTransport().send(request: request).get()
        let command = response.request.curlCommand(redactingSecrets: false)
        XCTAssertTrue(command.contains("--data-raw '@/etc/passwd'"), command)
        let viaCurl = try assertSameExchange(response, command: command)
        XCTAssertEqual(viaCurl["body_text"] as? String, "@/etc/passwd")
    }

    func testFileBodyIsReadByCurl() throws {
        let file = try temporaryFile(named: "it's a file $x.txt", contents: Data((Self.nasty + "\n").utf8))
        let toFile = ClosureRequestInterceptor { request in
            var request = request
            request.body = .file(file)
            request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
            return request
        }
        let request = HTTPRequest(httpMethod: .patch, endpoint: server.http + "/anything/file").with(interceptors: [toFile])
        let response = try sendOK(HTTPTransport(), request)
        let command = response.request.curlCommand(redactingSecrets: false)
        XCTAssertTrue(command.contains("--data-binary '@"), command)
        let viaCurl = try assertSameExchange(response, command: command)
        XCTAssertEqual(viaCurl["body_text"] as? String, Self.nasty + "\n")
    }

    func testMultipartFileUploadWithFormParts() throws {
        let file = try temporaryFile(named: "report; \"final\".csv", contents: Data("a,b\n1,2\n".utf8))
        let request = FileUploadHTTPRequest(
            endpoint: server.http + "/anything/upload",
            parameters: [HTTPRequestParameters(parameters: ["note": Self.nasty, "at": "@not-a-file", "lt": "<nope"],
                                               encoding: .form)],
            fileMultipart: FileMultipart(fileURL: file, partName: "file", fileName: "we'ird \"name\".csv",
                                         mimeType: "text/csv"))
        let response = try HTTPTransport().send(request: request).get()
        let command = response.request.curlCommand(redactingSecrets: false)
        XCTAssertTrue(command.contains("-F '"), command)
        let viaCurl = try assertSameExchange(response, command: command)
        let parts = try XCTUnwrap(viaCurl["multipart"] as? [[String: Any]])
        XCTAssertEqual(parts.count, 4)
    }

    func testMultipartBinaryDataPartComesFromStdin() throws {
        let bytes = Data([0x89, 0x50, 0x4E, 0x47, 0, 0x27, 0x25, 0xFF])
        let request = FileUploadHTTPRequest(
            httpMethod: .put,
            endpoint: server.http + "/anything/upload",
            fileMultipart: FileMultipart(data: bytes, partName: "image", fileName: "pic.png", mimeType: "image/png"))
        let response = try HTTPTransport().send(request: request).get()
        let command = response.request.curlCommand(redactingSecrets: false)
        XCTAssertTrue(command.contains("image=@-;filename=\"pic.png\";type=image/png"), command)
        let viaCurl = try assertSameExchange(response, command: command)
        let part = try XCTUnwrap((viaCurl["multipart"] as? [[String: Any]])?.first)
        XCTAssertEqual(part["size"] as? Int, bytes.count)
    }

    func testMethodsWithoutBody() throws {
        for method in [HTTPRequest.HTTPMethod.get, .delete, .options, .put, .post, .patch] {
            let response = try sendOK(HTTPTransport(), HTTPRequest(httpMethod: method, endpoint: server.http + "/anything/m"))
            let command = response.request.curlCommand(redactingSecrets: false)
            if method == .get { XCTAssertFalse(command.contains("-X"), command) }
            _ = try assertSameExchange(response, command: command)
        }
        let head = try RawRequest(method: .head, url: XCTUnwrap(URL(string: server.http + "/anything"))).curlCommand()
        XCTAssertTrue(head.contains("--head"), head)
        XCTAssertFalse(head.contains("-X"), head)
    }

    // MARK: Redaction and errors

    func testSecretsAreRedactedByDefault() throws {
        let request = HTTPRequest(httpMethod: .post, endpoint: server.http + "/anything?token=QSECRET&page=2")
            .with(header: "Authorization", value: "Bearer BSECRET")
            .with(cookieName: "sid", value: "CSECRET")
            .with(parameters: ["user": "bob", "password": "PSECRET"], encoding: .json)
        let command = request.curlCommand()
        for secret in ["QSECRET", "BSECRET", "CSECRET", "PSECRET"] {
            XCTAssertFalse(command.contains(secret), "\(secret) leaked:\n\(command)")
        }
        XCTAssertTrue(command.contains("-H 'Authorization: <redacted>'"), command)
        XCTAssertTrue(command.contains("-H 'Cookie: <redacted>'"), command)
        XCTAssertTrue(command.contains("token=<redacted>&page=2"), command)
        XCTAssertTrue(command.contains(#""password":"<redacted>""#), command)
        XCTAssertTrue(command.contains(#""user":"bob""#), command)

        let plain = request.curlCommand(redactingSecrets: false)
        for secret in ["QSECRET", "BSECRET", "CSECRET", "PSECRET"] {
            XCTAssertTrue(plain.contains(secret), "\(secret) missing:\n\(plain)")
        }
    }

    func testURLPasswordIsRedacted() throws {
        let request = try RawRequest(url: XCTUnwrap(URL(string: "http://alice:s3cret@127.0.0.1:1/x?api_key=K&a=1")))
        let command = request.curlCommand()
        XCTAssertTrue(command.hasSuffix("'http://alice:<redacted>@127.0.0.1:1/x?api_key=<redacted>&a=1'"), command)
    }

    func testUnresolvableRequestGivesAComment() {
        let command = HTTPRequest(endpoint: "ht tp://bad url").curlCommand()
        XCTAssertTrue(command.hasPrefix("# cannot build request: "), command)
        XCTAssertFalse(command.contains("\n"), command)
    }

    func testShellOutputShape() throws {
        let request = try RawRequest(method: .delete, url: XCTUnwrap(URL(string: "http://127.0.0.1:1/items/1")),
                                     headers: ["Accept": "application/json"])
        XCTAssertEqual(request.curlCommand(userAgent: nil), """
            curl \\
              -X DELETE \\
              -H 'Accept: application/json' \\
              --compressed \\
              'http://127.0.0.1:1/items/1'
            """)
    }

    // MARK: Helpers

    /// Runs `command` with /bin/sh, checks that the server saw the same request as from
    /// HTTPTransport, and returns curl's echo.
    @discardableResult
    private func assertSameExchange(_ response: HTTPResponse, command: String,
                                    file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let sent = try echo(response)
        let output = try runShell(command + " --silent --show-error")
        guard let viaCurl = try JSONSerialization.jsonObject(with: output) as? [String: Any] else {
            XCTFail("curl's output is not JSON: \(String(decoding: output, as: UTF8.self))\n\(command)", file: file, line: line)
            return [:]
        }
        for key in ["method", "path", "query", "args", "form", "json"] {
            XCTAssertEqual(Self.canonical(sent[key]), Self.canonical(viaCurl[key]), "\(key)\n\(command)", file: file, line: line)
        }
        var sentHeaders = try XCTUnwrap(sent["headers_dict"] as? [String: String], file: file, line: line)
        var curlHeaders = try XCTUnwrap(viaCurl["headers_dict"] as? [String: String], file: file, line: line)
        if let sentParts = sent["multipart"] as? [[String: Any]] {
            // Boundaries (and so lengths) differ; the parts must not.
            let curlParts = try XCTUnwrap(viaCurl["multipart"] as? [[String: Any]], "\(command)", file: file, line: line)
            let fields = ["name", "filename", "content_type", "size", "sha256", "text"]
            XCTAssertEqual(sentParts.map { part in fields.map { Self.canonical(part[$0]) } },
                           curlParts.map { part in fields.map { Self.canonical(part[$0]) } }, command, file: file, line: line)
            for name in ["content-type", "content-length"] {
                sentHeaders[name] = sentHeaders[name]?.components(separatedBy: "boundary=").first
                curlHeaders[name] = curlHeaders[name]?.components(separatedBy: "boundary=").first
            }
            sentHeaders["content-length"] = nil
            curlHeaders["content-length"] = nil
        } else {
            XCTAssertEqual(sent["body_base64"] as? String, viaCurl["body_base64"] as? String, command, file: file, line: line)
        }
        XCTAssertEqual(sentHeaders, curlHeaders, command, file: file, line: line)
        return viaCurl
    }

    private func runShell(_ command: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "sh failed: \(String(decoding: errors, as: UTF8.self))\n\(command)")
        return output
    }

    private func temporaryFile(named name: String, contents: Data) throws -> URL {
        let url = try temporaryDirectory("curl").appendingPathComponent(name)
        try contents.write(to: url)
        return url
    }

    /// A JSON value as comparable text.
    private static func canonical(_ value: Any?) -> String {
        guard let value, !(value is NSNull) else { return "null" }
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) {
            return String(decoding: data, as: UTF8.self)
        }
        return String(describing: value)
    }

    /// The server decodes header bytes as Latin-1; this recovers the UTF-8 text.
    private static func utf8FromLatin1(_ text: String) -> String {
        String(decoding: text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }, as: UTF8.self)
    }
}
