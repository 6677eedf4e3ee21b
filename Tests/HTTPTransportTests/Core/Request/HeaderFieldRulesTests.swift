import Foundation
import XCTest
@testable import HTTPTransport

/// `HeaderFieldRules`, and multipart parts whose name, file name or MIME type would change the
/// part's header lines: refused with `.encodingFailed` before anything is sent.
final class HeaderFieldRulesTests: XCTestCase {
    func testValueWithCRLFOrNULIsInvalid() {
        for value in ["a\rb", "a\nb", "a\r\nInjected: 1", "a\0b"] {
            XCTAssertFalse(HeaderFieldRules.isValidValue(value), value.debugDescription)
        }
        for value in ["", "text/plain; charset=utf-8", "tab\tinside", "é ü"] {
            XCTAssertTrue(HeaderFieldRules.isValidValue(value), value.debugDescription)
        }
    }

    func testTokenIsVisibleASCIIWithoutSeparators() {
        for name in ["X-Request-ID", "sid", "a!#$%&'*+-.^_`|~1"] {
            XCTAssertTrue(HeaderFieldRules.isToken(name), name)
        }
        for name in ["", "a b", "a;b", "a=b", "a:b", "é", "a\0", "a\r\n", "(x)"] {
            XCTAssertFalse(HeaderFieldRules.isToken(name), name.debugDescription)
        }
    }

    func testMultipartMIMETypeWithLineBreakIsRefusedAndNothingIsSent() throws {
        try assertRefusedAndNotSent(FileMultipart(data: Data("x".utf8), partName: "file", fileName: "a.txt",
                                                  mimeType: "text/plain\r\nX-Injected: 1"))
    }

    func testMultipartMIMETypeWithNULIsRefusedAndNothingIsSent() throws {
        try assertRefusedAndNotSent(FileMultipart(data: Data("x".utf8), partName: "file", fileName: "a.txt",
                                                  mimeType: "text/plain\0image/png"))
    }

    func testMultipartPartNameWithLineFeedIsRefusedAndNothingIsSent() throws {
        try assertRefusedAndNotSent(FileMultipart(data: Data("x".utf8), partName: "file\nX-Injected: 1", fileName: "a.txt",
                                                  mimeType: "text/plain"))
    }

    func testMultipartFileNameWithNULIsRefusedAndNothingIsSent() throws {
        try assertRefusedAndNotSent(FileMultipart(data: Data("x".utf8), partName: "file", fileName: "a.txt\0.exe",
                                                  mimeType: "text/plain"))
    }

    func testMultipartFormFieldNameWithCarriageReturnIsRefused() throws {
        let request = FileUploadHTTPRequest(endpoint: server.http + "/upload",
                                            parameters: [HTTPRequestParameters(parameters: ["a\rb": "1"], encoding: .form)],
                                            fileMultipart: FileMultipart(data: Data("x".utf8), partName: "file",
                                                                         fileName: "a.txt", mimeType: "text/plain"))
        XCTAssertEqual(HTTPTransport().send(request: request).error?.code, .encodingFailed)
    }

    func testValidMultipartIsStillSent() throws {
        let request = FileUploadHTTPRequest(endpoint: server.http + "/upload",
                                            fileMultipart: FileMultipart(data: Data("x".utf8), partName: "file",
                                                                         fileName: "a b.txt", mimeType: "text/plain; charset=utf-8"))
        XCTAssertEqual(try sendOK(HTTPTransport(), request).httpStatus, .ok)
    }

    private func assertRefusedAndNotSent(_ part: FileMultipart, file: StaticString = #filePath, line: UInt = #line) throws {
        let transport = HTTPTransport()
        _ = transport.send(request: HTTPRequest(endpoint: server.http + "/_admin/reset"))
        let result = transport.send(request: FileUploadHTTPRequest(endpoint: server.http + "/upload", fileMultipart: part))
        XCTAssertEqual(result.error?.code, .encodingFailed, "\(String(describing: result.error))", file: file, line: line)
        let count = try sendOK(transport, HTTPRequest(endpoint: server.http + "/_admin/count"), file: file, line: line)
        XCTAssertEqual(try echo(count)["count"] as? Int, 0, "the server received a request", file: file, line: line)
    }
}
