import Foundation
import HTTPTransport
import XCTest

/// Bad input and network faults end in a clear `.failure`, never a crash or a hang.
final class FaultTests: XCTestCase {
    let transport = HTTPTransport()

    func testInvalidEndpointFailsWithTheRawStringAsURL() {
        for endpoint in ["not a url", "", "ftp://127.0.0.1/file", "http://", "/relative/only"] {
            let result = transport.send(request: HTTPRequest(endpoint: endpoint))
            XCTAssertEqual(result.error?.code, .invalidURL, endpoint)
            XCTAssertEqual(result.error?.url, endpoint)
        }
    }

    func testUnresolvableHostFailsWithNameResolution() {
        // A 70-character label is rejected by the resolver before any query leaves the machine.
        let host = String(repeating: "a", count: 70) + ".invalid"
        let result = transport.send(request: HTTPRequest(endpoint: "http://\(host)/"))
        XCTAssertEqual(result.error?.code, .nameResolution, "\(String(describing: result.error))")
        XCTAssertNotNil(result.error?.curlCode)
    }

    func testRefusedConnectionFailsWithCannotConnect() {
        let port = TestServer.closedPort()
        let result = transport.send(request: HTTPRequest(endpoint: "http://127.0.0.1:\(port)/"))
        XCTAssertEqual(result.error?.code, .cannotConnect)
        XCTAssertEqual(result.error?.url, "http://127.0.0.1:\(port)/")
        XCTAssertNotNil(result.error?.curlMessage)
    }

    func testSlowServerFailsWithTimeout() {
        let started = Date()
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/delay/5", timeout: 0.5))
        XCTAssertEqual(result.error?.code, .timeout)
        XCTAssertLessThan(Date().timeIntervalSince(started), 4)
    }

    func testTimeoutBoundsTheWholeExchangeIncludingASlowBody() {
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/drip?bytes=50&delay=0.1", timeout: 1))
        XCTAssertEqual(result.error?.code, .timeout)
    }

    func testTruncatedBodyFailsWithBadResponse() {
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/fault/truncated"))
        XCTAssertEqual(result.error?.code, .badResponse, "\(String(describing: result.error))")
    }

    func testTruncatedChunkedBodyFailsWithBadResponse() {
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/fault/chunked-truncated"))
        XCTAssertEqual(result.error?.code, .badResponse, "\(String(describing: result.error))")
    }

    func testServerClosingBeforeRespondingFailsWithBadResponse() {
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/fault/close-before-response"))
        XCTAssertEqual(result.error?.code, .badResponse, "\(String(describing: result.error))")
    }

    func testServerClosingMidHeadersFailsWithBadResponse() {
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/fault/partial-headers"))
        XCTAssertEqual(result.error?.code, .badResponse, "\(String(describing: result.error))")
    }

    func testGarbageInsteadOfHTTPFailsWithBadResponse() {
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/fault/garbage"))
        XCTAssertEqual(result.error?.code, .badResponse, "\(String(describing: result.error))")
    }

    func testTransportStillWorksAfterFaults() throws {
        _ = transport.send(request: HTTPRequest(endpoint: server.http + "/fault/truncated"))
        _ = transport.send(request: HTTPRequest(endpoint: server.http + "/fault/garbage"))
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/json"))
        XCTAssertEqual(response.httpStatus, .ok)
    }

    func testResponseLargerThanTheCapFailsWhileStreaming() {
        var configuration = Session.Configuration()
        configuration.maxResponseSize = 1024 * 1024
        let capped = HTTPTransport(session: Session(configuration: configuration))
        // Declared length over the cap.
        XCTAssertEqual(capped.send(request: HTTPRequest(endpoint: server.http + "/bytes/2000000")).error?.code, .responseTooLarge)
        // No declared length (chunked): the cap is enforced as the body streams in.
        XCTAssertEqual(capped.send(request: HTTPRequest(endpoint: server.http + "/stream-bytes/2000000")).error?.code,
                       .responseTooLarge)
        // Under the cap is fine.
        XCTAssertEqual(capped.send(request: HTTPRequest(endpoint: server.http + "/stream-bytes/1000000")).value?.body?.count,
                       1_000_000)
    }

    func testHugeResponseUnderTheDefaultCapArrivesWhole() throws {
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/bytes/20000000"))
        let body = try XCTUnwrap(response.body)
        XCTAssertEqual(body.count, 20_000_000)
        XCTAssertEqual(body[body.startIndex + 252], 1)  // the pattern i % 251
    }

    func testInvalidJSONMakesGetJSONThrow() throws {
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/json-invalid"))
        XCTAssertThrowsError(try response.getJSON())
        XCTAssertThrowsError(try response.getJSONDictionary())
    }

    func testNonUTF8BodyGivesNilString() throws {
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/nonutf8"))
        XCTAssertNil(response.getString())
        XCTAssertEqual(response.body, Data([0xFF, 0xFE, 0xFA]))
    }

    func testThrowingRequestInterceptorSendsNothing() throws {
        struct Refusal: Error {}
        _ = transport.send(request: HTTPRequest(endpoint: server.http + "/_admin/reset"))
        let request = HTTPRequest(endpoint: server.http + "/anything")
            .with(interceptors: [ClosureRequestInterceptor { _ in throw Refusal() }])
        let result = transport.send(request: request)
        XCTAssertEqual(result.error?.code, .interceptorFailed)
        let count = try sendOK(transport, HTTPRequest(endpoint: server.http + "/_admin/count"))
        XCTAssertEqual(try echo(count)["count"] as? Int, 0)
    }

    func testHeaderWithLineBreakIsRejected() {
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/anything").with(header: "X-Evil", value: "a\r\nInjected: 1"))
        XCTAssertEqual(result.error?.code, .encodingFailed)
    }

    func testMissingUploadFileFailsWithFileIO() {
        let part = FileMultipart(fileURL: URL(fileURLWithPath: "/nonexistent/file.bin"), partName: "f", fileName: "f.bin",
                                 mimeType: "application/octet-stream")
        let result = transport.send(request: FileUploadHTTPRequest(endpoint: server.http + "/upload", fileMultipart: part))
        XCTAssertEqual(result.error?.code, .fileIO)
    }
}
