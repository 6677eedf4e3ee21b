import Foundation
import HTTPTransport
import XCTest

/// Text that would add, split or cut a header line is refused with `.encodingFailed` before
/// anything is sent (issue 12.9): the server's request counter does not move.
final class InjectionRefusalTests: XCTestCase {
    private let transport = HTTPTransport()
    private var url: String { server.http + "/anything/injection" }

    /// Sends `request`, expects `.encodingFailed`, and checks that the server saw no request.
    private func assertRefused(_ request: some HTTPRequestEnvelope, _ label: String,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        _ = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/_admin/reset"))
        let result = transport.send(request: request, control: TransferControl())
        XCTAssertEqual(result.error?.code, .encodingFailed, "\(label): \(String(describing: result.error))", file: file, line: line)
        let count = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/_admin/count"))
        XCTAssertEqual(try count.getJSONDictionary()?["count"] as? Int, 0, "\(label) was sent", file: file, line: line)
    }

    func testHeaderValuesWithNULOrLineBreaksAreRefused() throws {
        for (label, value) in [("NUL", "a\u{0}Injected: 1"), ("CR", "a\rInjected: 1"), ("LF", "a\nInjected: 1"),
                               ("CRLF", "a\r\nInjected: 1")] {
            try assertRefused(HTTPRequest(endpoint: url).with(header: "X-Note", value: value), label)
        }
    }

    func testHeaderNamesThatAreNotTokensAreRefused() throws {
        for name in ["X Bad", "X:Bad", "", "X-Bad\r\nInjected", "X\u{0}"] {
            try assertRefused(HTTPRequest(endpoint: url).with(header: name, value: "v"), name.debugDescription)
        }
    }

    func testAnInterceptorAddingABadHeaderIsRefusedToo() throws {
        let injecting = ClosureRequestInterceptor { request in
            var request = request
            request.setValue("a\r\nInjected: 1", forHTTPHeaderField: "X-Note")
            return request
        }
        try assertRefused(HTTPRequest(endpoint: url).with(interceptors: [injecting]), "from an interceptor")
    }

    func testCookieValuesThatWouldSmuggleAnotherCookieOrHeaderAreRefused() throws {
        for (label, value) in [("semicolon", "x; role=admin"), ("CR", "x\rInjected: 1"), ("LF", "x\nInjected: 1"),
                               ("NUL", "x\u{0}")] {
            try assertRefused(HTTPRequest(endpoint: url).with(cookieName: "sid", value: value), "cookie value " + label)
            try assertRefused(HTTPRequest(endpoint: url).with(cookie: HTTPCookie(name: "sid", value: value)), "cookie " + label)
        }
    }

    func testCookieNamesThatAreNotTokensAreRefused() throws {
        for name in ["a=b", "a b", "a;b", "", "a\r\nb"] {
            try assertRefused(HTTPRequest(endpoint: url).with(cookieName: name, value: "1"), "cookie name \(name.debugDescription)")
        }
    }

    func testARefusedCookieIsNotLostByLaterBuilders() throws {
        let request = HTTPRequest(endpoint: url).with(cookieName: "sid", value: "x; role=admin")
            .with(header: "X-Later", value: "1").with(cookieName: "ok", value: "2")
        try assertRefused(request, "refused cookie, then other builders")
    }

    func testAValidCookieJoinsAnExistingCookieHeader() throws {
        let request = HTTPRequest(endpoint: url).with(header: "Cookie", value: "a=1").with(cookieName: "b", value: "2")
            .with(cookie: HTTPCookie(name: "c", value: "3=three"))
        let headers = try receivedHeaders(try sendOK(transport, request))
        XCTAssertEqual(headers["cookie"], "a=1; b=2; c=3=three")
    }

    // MARK: curlCommand()

    func testCurlCommandSaysExpectIsOffForARequestWithABody() throws {
        let command = try DataUploadHTTPRequest(endpoint: url, data: Data("body".utf8)).resolve().curlCommand()
        XCTAssertTrue(command.contains("-H 'Expect:'"), command)
        let bodiless = try HTTPRequest(endpoint: url).resolve().curlCommand()
        XCTAssertFalse(bodiless.contains("Expect"), bodiless)
    }

    func testCurlCommandNeverPrintsAProxyAuthorizationHeader() throws {
        let request = try HTTPRequest(endpoint: url).with(header: "Proxy-Authorization", value: "Basic UFJPWFk=").resolve()
        for redacting in [true, false] {
            let command = request.curlCommand(redactingSecrets: redacting)
            XCTAssertFalse(command.lowercased().contains("proxy-authorization"), command)
            XCTAssertFalse(command.contains("UFJPWFk="), command)
        }
    }
}
