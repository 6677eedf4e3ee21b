@testable import HTTPTransport
import XCTest

/// The header callback only copies each line into one buffer (`ReceivedHeaderLines`), and reads
/// scan that buffer when asked. That fast path must read exactly as the plain path, the block
/// the lines make when appended one by one (`ReceivedHeaderBlock.appendingEachLine(of:)`):
/// the same count, fields in order, values and presence for every name in any case.
final class ReceivedHeaderLinesTests: XCTestCase {
    /// The lines as the header callback leaves them (`ccurl_response_head_receive`): each ended
    /// with "\n", empty ones dropped, and whether one is an obs-fold line.
    private func raw(_ lines: [[UInt8]]) -> ReceivedHeaderLines {
        let kept = lines.filter { !$0.isEmpty }
        let bytes = Array(kept.map { $0 + [0x0A] }.joined())
        return bytes.withUnsafeBytes {
            ReceivedHeaderLines(copying: $0, hasFold: kept.contains { $0[0] == 0x20 || $0[0] == 0x09 })
        }
    }

    private func assertBothPathsRead(_ lines: [[UInt8]], alsoAsking names: [String] = [],
                                     file: StaticString = #filePath, line: UInt = #line) {
        let fast = raw(lines), plain = ReceivedHeaderBlock.appendingEachLine(of: fast)
        XCTAssertEqual(fast.count, plain.lines.count, "\(lines)", file: file, line: line)
        XCTAssertEqual(fast.fields, plain.fields, "\(lines)", file: file, line: line)
        let asked = plain.fields.flatMap { [$0.name, $0.name.uppercased(), $0.name.lowercased()] } + names
        for name in asked {
            XCTAssertEqual(fast.values(named: name), plain.values(named: name), name, file: file, line: line)
            XCTAssertEqual(fast.values(named: name, limit: 1), plain.values(named: name, limit: 1), name, file: file, line: line)
            XCTAssertEqual(fast.contains(name), plain.contains(name), name, file: file, line: line)
        }
    }

    func testReadingTheLinesEqualsReadingTheBlockAppendedLineByLine() {
        let blocks: [[String]] = [
            [],
            ["Content-Type: \t text/plain  ", "a line without a colon", "Set-Cookie: a=1", "set-cookie: b=2", "Empty:",
             "Spaced-Name  :  v", "X-Colons: a:b:c", ":no name", "Trailing-Tab:\tv\t"],
            ["Server: nginx/1.22.1", "Date: Wed, 25 Nov 2026 19:00:00 GMT", "Content-Type: application/json",
             "Content-Length: 94", "Last-Modified: Wed, 25 Nov 2026 18:58:00 GMT", "Connection: keep-alive",
             "ETag: \"6765-5e\"", "Accept-Ranges: bytes"],
            ["X-Folded: first ", "   second part  ", "\tthird", "After: fold"],
            ["  stray before any line", "A: 1"],
            ["HTTP/1.1 200 OK inside a block: x"],
        ]
        for block in blocks { assertBothPathsRead(block.map { Array($0.utf8) }, alsoAsking: ["", "missing", "Content-Typ"]) }
        assertBothPathsRead([[0x58, 0xFF, 0x3A, 0x20, 0x61, 0xFE], Array("Caf\u{E9}: ok".utf8), Array("Plain: yes".utf8)],
                            alsoAsking: ["X\u{FFFD}", "CAF\u{E9}", "caf\u{C9}", "X"])
    }

    func testReadingGeneratedLinesEqualsReadingTheBlockAppendedLineByLine() {
        // Lines of the bytes that matter to splitting, trimming and comparing, from a fixed seed.
        let alphabet: [UInt8] = [0x20, 0x09, 0x3A, 0x61, 0x41, 0x2D, 0xC3, 0xA9, 0xFF, 0x30]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for _ in 0..<1000 {
            let lines = (0..<next(6)).map { _ in (0..<(1 + next(10))).map { _ in alphabet[next(alphabet.count)] } }
            assertBothPathsRead(lines, alsoAsking: ["a", "A-a", "\u{E9}"])
        }
    }

    /// libcurl's header callback is C's `ccurl_header_callback`, which reads every line into the
    /// handle's response head and calls Swift only for a line that asks something of the
    /// transfer: it must leave a transfer exactly as feeding every line to the state does
    /// (`TransferState.receiveHeaderLine`, the way in without a handle).
    func testTheCHeaderCallbackLeavesWhatTheSwiftCallbackLeaves() throws {
        let blocks: [[String]] = [
            ["HTTP/1.1 200 OK", "Server: nginx", "Content-Type: text/plain", "Content-Length: 5", "connection: close",
             "X-Folded: a", "  b", "\tc", "a line without a colon", "HTTP/1.1 200 inside: x", "cache-control: no-cache",
             "Content-Encoding: gzip", "", "X-Trailer: t", ""],
            ["HTTP/1.1 100 Continue", "X-Interim: 1", "", "HTTP/1.1 201 Created", "Location: /x", "C: 3", ""],
            ["  stray before the status", "HTTP/2 204", "hTTP-ish: y", "H: 1", ""],
            ["HTTP/1.1 200 OK", "Cut: short"],
        ]
        for block in blocks {
            let handle = try XCTUnwrap(EasyHandle())
            let viaC = handle.transferState
            viaC.begin(control: TransferControl(), requestURL: "http://127.0.0.1/", maxResponseSize: 1 << 20)
            handle.transferSlot.pointee.state = viaC.opaque
            let swiftOnly = TransferState(maxResponseSize: 1 << 20, control: TransferControl(), requestURL: "http://127.0.0.1/")
            for line in block {
                var bytes = Array((line + "\r\n").utf8)
                XCTAssertEqual(bytes.withUnsafeMutableBytes { handle.deliverHeaderLine($0) }, bytes.count)
                bytes.withUnsafeBytes { swiftOnly.receiveHeaderLine($0) }
            }
            XCTAssertEqual(viaC.statusCode, swiftOnly.statusCode, "\(block)")
            XCTAssertEqual(viaC.headersComplete, swiftOnly.headersComplete, "\(block)")
            XCTAssertEqual(viaC.headers.fields, swiftOnly.headers.fields, "\(block)")
            XCTAssertEqual(viaC.headers.count, swiftOnly.headers.count, "\(block)")
            XCTAssertEqual(viaC.bodyCapacity, swiftOnly.bodyCapacity, "\(block)")
        }
    }

    func testTheHeaderCallbackReadsFoldedAndPlainLines() {
        let state = TransferState(maxResponseSize: 1 << 20, control: TransferControl(), requestURL: "http://127.0.0.1/")
        for line in ["HTTP/1.1 200 OK", "B: 2", "c: 3", "X-Folded: a", " b", ""] {
            Array((line + "\r\n").utf8).withUnsafeBytes { state.receiveHeaderLine($0) }
        }
        XCTAssertEqual(state.headers.fields, [.init(name: "B", value: "2"), .init(name: "c", value: "3"),
                                              .init(name: "X-Folded", value: "a b")])
    }
}
