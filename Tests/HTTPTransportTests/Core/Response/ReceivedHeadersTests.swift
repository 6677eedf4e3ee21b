@testable import HTTPTransport
import XCTest

/// Response headers are kept as the bytes libcurl hands over and decoded when read. Fed line by
/// line through the engine's header callback, they must read exactly as headers built in code:
/// trimming, folded lines, repeated names, case-insensitive lookups, invalid UTF-8, interim
/// responses, value semantics.
final class ReceivedHeadersTests: XCTestCase {
    private func receive(_ lines: [[UInt8]], into state: TransferState? = nil) -> TransferState {
        let state = state ?? TransferState(maxResponseSize: 1 << 20, control: TransferControl(), requestURL: "http://127.0.0.1/")
        for line in lines {
            line.withUnsafeBytes { state.receiveHeaderLine($0) }
        }
        return state
    }

    private func lines(_ text: [String]) -> [[UInt8]] { text.map { Array(($0 + "\r\n").utf8) } }

    func testReceivedHeadersReadLikeBuiltOnes() {
        let state = receive(lines([
            "HTTP/1.1 200 OK", "Content-Type: \t text/plain  ", "X-Folded: first ", "   second part  ", "\tthird",
            "a line without a colon", "Set-Cookie: a=1", "set-cookie: b=2", "Empty:", "Spaced-Name  :  v", "X-Colons: a:b:c", "",
        ]))
        let expected = HTTPHeaders([
            .init(name: "Content-Type", value: "text/plain"), .init(name: "X-Folded", value: "first second part third"),
            .init(name: "Set-Cookie", value: "a=1"), .init(name: "set-cookie", value: "b=2"), .init(name: "Empty", value: ""),
            .init(name: "Spaced-Name", value: "v"), .init(name: "X-Colons", value: "a:b:c"),
        ])
        let headers = state.headers
        XCTAssertEqual(state.statusCode, 200)
        XCTAssertTrue(state.headersComplete)
        XCTAssertEqual(headers.fields, expected.fields)
        XCTAssertEqual(headers, expected)
        XCTAssertEqual(headers.hashValue, expected.hashValue)
        XCTAssertEqual(headers.count, 7)
        XCTAssertEqual(headers.values("SET-COOKIE"), ["a=1", "b=2"])
        XCTAssertEqual(headers["set-cookie"], "a=1, b=2")
        XCTAssertEqual(headers.first("content-type"), "text/plain")
        XCTAssertEqual(headers.first("empty"), "")
        XCTAssertTrue(headers.contains("x-FOLDED"))
        XCTAssertFalse(headers.contains("a line without a colon"))
        XCTAssertNil(headers.first("Content-Typ"))
        XCTAssertEqual(headers.dictionary["Set-Cookie"], "a=1, b=2")
        XCTAssertEqual(Array(headers).map(\.name), expected.fields.map(\.name))
        XCTAssertEqual(headers.description, expected.description)
    }

    func testChangingReceivedHeadersChangesOnlyTheCopy() {
        let received = receive(lines(["HTTP/1.1 200 OK", "A: 1", "B: 2", "a: 3", ""])).headers
        var changed = received
        changed.add("C", "4")
        changed.replace("a", with: "9")
        changed.remove("B")
        XCTAssertEqual(changed.fields, [.init(name: "a", value: "9"), .init(name: "C", value: "4")])
        XCTAssertEqual(received.values("a"), ["1", "3"])
        XCTAssertEqual(received.count, 3)
        XCTAssertNotEqual(changed, received)
    }

    func testAnInterimResponseLeavesNoHeaders() {
        let state = receive(lines(["HTTP/1.1 100 Continue", "X-Interim: 1", "", "HTTP/1.1 201 Created", "X-Final: 2", ""]))
        XCTAssertEqual(state.statusCode, 201)
        XCTAssertEqual(state.headers.fields, [.init(name: "X-Final", value: "2")])
    }

    func testInvalidUTF8IsRepairedAndStillFound() {
        let state = receive([Array("HTTP/1.1 200 OK\r\n".utf8), [0x58, 0xFF, 0x3A, 0x20, 0x61, 0xFE, 0x0D, 0x0A],
                             Array("Caf\u{E9}: ok\r\n".utf8), Array("Plain: yes\r\n".utf8)])
        let headers = state.headers
        XCTAssertEqual(headers.first("X\u{FFFD}"), "a\u{FFFD}")
        XCTAssertEqual(headers.first("CAF\u{E9}"), "ok")  // ASCII letters fold; é as sent
        XCTAssertEqual(headers.first("plain"), "yes")
        XCTAssertEqual(headers.fields.map(\.name), ["X\u{FFFD}", "Caf\u{E9}", "Plain"])
    }

    func testHeadersReadEarlyDoNotChangeWhenMoreLinesArrive() {
        let state = receive(lines(["HTTP/1.1 200 OK", "A: 1", ""]))
        let early = state.headers
        _ = receive(lines(["X-Trailer: t"]), into: state)  // e.g. a chunked body's trailer
        XCTAssertFalse(early.contains("X-Trailer"))
        XCTAssertEqual(early.count, 1)
        XCTAssertEqual(state.headers.first("x-trailer"), "t")
    }

    func testAFoldedLineBeforeAnyHeaderIsIgnored() {
        let state = receive(lines(["HTTP/1.1 200 OK", "  stray", "A: 1", ""]))
        XCTAssertEqual(state.headers.fields, [.init(name: "A", value: "1")])
    }
}
