@testable import HTTPTransport
import XCTest

/// Malformed responses end as `.badResponse`, a stray status line inside a header block does
/// not replace what was received, and a declared `Content-Length` reserves little memory before
/// the body arrives.
final class BadResponseTests: XCTestCase {
    let transport = HTTPTransport()

    func testAFourDigitStatusCodeFailsWithBadResponse() {
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/fault/four-digit-status"))
        XCTAssertEqual(result.error?.code, .badResponse, "\(String(describing: result.error))")
    }

    func testAnUnsupportedHTTPVersionFailsWithBadResponse() {
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/fault/unsupported-version"))
        XCTAssertEqual(result.error?.code, .badResponse, "\(String(describing: result.error))")
    }

    func testAStatusLineInsideTheHeaderBlockDoesNotResetTheResponse() throws {
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/fault/status-line-in-headers"))
        XCTAssertEqual(response.httpStatus, .ok)
        XCTAssertEqual(response.header(named: "X-Before"), "1")
        XCTAssertEqual(response.header(named: "X-After"), "2")
        XCTAssertEqual(response.getString(), "ok")
    }

    func testAnInterimResponseIsStillReplacedByTheFinalOne() throws {
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/fault/interim-then-final"))
        XCTAssertEqual(response.httpStatus.rawValue, 201)
        XCTAssertEqual(response.header(named: "X-Final"), "1")
        XCTAssertNil(response.header(named: "Link"))
    }

    // MARK: Header lines, fed as libcurl hands them over

    private func receive(_ lines: [String], maxResponseSize: Int64 = 100 << 20) -> TransferState {
        let state = TransferState(maxResponseSize: maxResponseSize, control: TransferControl(), requestURL: "http://127.0.0.1/")
        for line in lines {
            Array((line + "\r\n").utf8).withUnsafeBytes { state.receiveHeaderLine($0) }
        }
        return state
    }

    func testAStatusLineAfterTheFinalHeaderBlockIsNoNewResponse() {
        // Trailers of a chunked body come after the final block: none of them starts a response.
        let state = receive(["HTTP/1.1 200 OK", "A: 1", "", "HTTP/1.1 500 Trailer", "X-Trailer: t"])
        XCTAssertEqual(state.statusCode, 200)
        XCTAssertTrue(state.headersComplete)
        XCTAssertEqual(state.headers.first("A"), "1")
    }

    func testEveryInterimBlockIsReplacedByTheNextResponse() {
        let state = receive(["HTTP/1.1 100 Continue", "", "HTTP/1.1 103 Early Hints", "Link: </a>", "",
                             "HTTP/1.1 204 No Content", "X-Final: 1", ""])
        XCTAssertEqual(state.statusCode, 204)
        XCTAssertEqual(state.headers.fields, [.init(name: "X-Final", value: "1")])
    }

    func testADeclaredContentLengthReservesAtMostTheSmallCap() {
        let hostile = receive(["HTTP/1.1 200 OK", "Content-Length: 100000000", ""])
        XCTAssertEqual(Int64(hostile.bodyCapacity), TransferState.declaredLengthReservation)
        let small = receive(["HTTP/1.1 200 OK", "content-length: 1000", ""])
        XCTAssertEqual(small.bodyCapacity, 1000)
        let overCap = receive(["HTTP/1.1 200 OK", "Content-Length: 5000", ""], maxResponseSize: 4000)
        XCTAssertEqual(overCap.bodyCapacity, 0)
    }

    func testABodyLargerThanTheReservationGrowsAsItArrives() {
        let state = receive(["HTTP/1.1 200 OK", "Content-Length: 1000000", ""])
        let chunk = [UInt8](repeating: 7, count: 64 * 1024)
        var fed = 0
        while fed < 1_000_000 {
            let count = min(chunk.count, 1_000_000 - fed)
            XCTAssertEqual(chunk[..<count].withUnsafeBytes { state.receiveBody($0) }, count)
            fed += count
        }
        XCTAssertLessThan(state.bodyCapacity, 2 * 1_000_000)
        let body = state.takeBody()
        XCTAssertEqual(body.count, 1_000_000)
        XCTAssertTrue(body.allSatisfy { $0 == 7 })
    }
}
