import Foundation
import HTTPTransport
import XCTest

/// An `HTTPTransportError`'s texts never show a URL's secrets, wherever its message was built;
/// only `url` keeps the raw URL.
final class ErrorRedactionTests: XCTestCase {
    private static let secrets = ["PASSWORD1", "USERTOKEN1", "SECRET1", "SIG1"]

    func testFailedSendShowsNoSecretInAnyText() throws {
        let raw = "http://user:PASSWORD1@127.0.0.1:\(TestServer.closedPort())/x?token=SECRET1&sig=SIG1&page=2"
        let error = try XCTUnwrap(HTTPTransport().send(request: HTTPRequest(endpoint: raw)).error)
        XCTAssertEqual(error.code, .cannotConnect)
        assertNoSecret(in: error)
        XCTAssertEqual(error.url, raw, "url keeps the raw URL")
        XCTAssertTrue(error.description.contains("user:<redacted>@127.0.0.1"), error.description)
        XCTAssertTrue(error.description.contains("token=<redacted>&sig=<redacted>&page=2"), error.description)
    }

    func testUserNameTokenIsHiddenInErrors() throws {
        let raw = "http://USERTOKEN1@127.0.0.1:\(TestServer.closedPort())/x"
        let error = try XCTUnwrap(HTTPTransport().send(request: HTTPRequest(endpoint: raw)).error)
        assertNoSecret(in: error)
        XCTAssertTrue(error.description.contains("http://<redacted>@127.0.0.1"), error.description)
        XCTAssertEqual(error.url, raw)
    }

    func testHTTPStatusFailureShowsNoSecretQueryValue() throws {
        let raw = server.http + "/status/404?token=SECRET1&X-Amz-Signature=SIG1"
        let error = try XCTUnwrap(HTTPTransport().send(request: HTTPRequest(endpoint: raw)).error)
        XCTAssertEqual(error.code, .httpStatus)
        assertNoSecret(in: error)
        XCTAssertTrue(error.message.contains("/status/404?token=<redacted>&X-Amz-Signature=<redacted>"), error.message)
        XCTAssertEqual(error.url, raw)
    }

    func testRefusedRedirectShowsItsLocationRedacted() throws {
        let location = "ftp://user:PASSWORD1@files.example/x?token=SECRET1"
        let encoded = try XCTUnwrap(location.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let error = try XCTUnwrap(HTTPTransport().send(request: HTTPRequest(endpoint: server.http + "/redirect-to?url=" + encoded)).error)
        XCTAssertEqual(error.code, .badResponse)
        assertNoSecret(in: error)
        XCTAssertTrue(error.message.contains("'ftp://user:<redacted>@files.example/x?token=<redacted>'"), error.message)
    }

    func testMessageBuiltAnywhereIsRedactedWhenCreatedAndWhenSet() {
        var error = HTTPTransportError(code: .badResponse,
                                       message: "Location: /next?code=SECRET1 and https://USERTOKEN1@h.example/?sig=SIG1",
                                       url: "https://h.example/?token=SECRET1", curlMessage: "curl saw https://u:PASSWORD1@h/")
        assertNoSecret(in: error)
        error.message = "later: https://u:PASSWORD1@h.example/?sig=SIG1"
        error.curlMessage = "also https://USERTOKEN1@h.example/"
        assertNoSecret(in: error)
        XCTAssertEqual(error.message, "later: https://u:<redacted>@h.example/?sig=<redacted>")
        XCTAssertEqual(error.url, "https://h.example/?token=SECRET1")
    }

    func testNSErrorFormCarriesRedactedMessageAndURL() throws {
        let error = HTTPTransportError(code: .timeout, message: "Timed out on https://u:PASSWORD1@h.example/?token=SECRET1",
                                       url: "https://u:PASSWORD1@h.example/?token=SECRET1")
        let nsError = error as NSError
        let url = try XCTUnwrap(nsError.url)
        XCTAssertEqual(url, "https://u:<redacted>@h.example/?token=<redacted>")
        XCTAssertEqual(nsError.userInfo[NSLocalizedDescriptionKey] as? String,
                       "Timed out on https://u:<redacted>@h.example/?token=<redacted>")
    }

    /// Checks every text an error shows: description, debug description, message, curl's
    /// message, `localizedDescription` and the `NSError` form with its `userInfo`.
    private func assertNoSecret(in error: HTTPTransportError, file: StaticString = #filePath, line: UInt = #line) {
        let nsError = error as NSError
        let texts = [
            "\(error)", String(reflecting: error), error.message, error.curlMessage ?? "", error.localizedDescription,
            nsError.localizedDescription, "\(nsError)", "\(nsError.userInfo)",
        ]
        for (index, text) in texts.enumerated() {
            for secret in Self.secrets where text.contains(secret) {
                XCTFail("text \(index) shows \(secret): \(text)", file: file, line: line)
            }
        }
    }
}
