@testable import HTTPTransport
import XCTest

/// What a download reads from disk and from the server before continuing a part file: its
/// resume record and the answer's `Content-Range`. Both come from outside (a file anyone may
/// have written, a server's header), so anything not exactly right reads as nothing.
final class DownloadRecordTests: XCTestCase {
    let url = "https://files.example/disk.iso?X-Amz-Signature=abc"

    func testRecordReadsBackItsOwnText() throws {
        let record = try XCTUnwrap(ResumeRecord(url: url, validator: "\"v1\""))
        XCTAssertEqual(ResumeRecord(text: record.text), record)
        XCTAssertTrue(record.matches(url: url))
        XCTAssertTrue(record.isEntityTag)
    }

    func testRecordKeepsNoURLInClear() throws {
        let record = try XCTUnwrap(ResumeRecord(url: url, validator: "Wed, 21 Oct 2015 07:28:00 GMT"))
        XCTAssertFalse(record.text.contains("files.example") || record.text.contains("abc"), record.text)
        XCTAssertFalse(record.isEntityTag)
    }

    func testRecordDoesNotMatchAnotherURL() throws {
        let record = try XCTUnwrap(ResumeRecord(url: url, validator: "\"v1\""))
        XCTAssertFalse(record.matches(url: url + "x"))
        XCTAssertFalse(record.matches(url: "https://files.example/other.iso"))
    }

    func testValidatorsThatCannotIdentifyAnEntityOrBeSentAreRefused() {
        for validator in ["", "W/\"weak\"", "\"line\nbreak\"", "\"nul\0\"", "\"del\u{7F}\"", "\"\u{E9}\"",
                          "\"" + String(repeating: "a", count: 600) + "\""] {
            XCTAssertNil(ResumeRecord(url: url, validator: validator), validator)
        }
    }

    func testTextThatIsNotExactlyARecordReadsAsNone() throws {
        let text = try XCTUnwrap(ResumeRecord(url: url, validator: "\"v1\"")).text
        let broken = [
            "\"v1\"",  // a bare validator
            String(text.dropLast()),  // cut short
            text + "extra\n",
            text.replacingOccurrences(of: "resume 1", with: "resume 2"),
            text.replacingOccurrences(of: "url-sha256: ", with: "url-sha256: 0"),
            text.replacingOccurrences(of: "validator: \"v1\"", with: "validator: W/\"v1\""),
            text.uppercased(),
        ]
        for candidate in broken {
            XCTAssertNil(ResumeRecord(text: candidate), candidate)
        }
    }

    func testContentRangeIsParsedExactly() {
        let known = ContentRange("bytes 100-199/200")
        XCTAssertEqual([known?.first, known?.last, known?.completeLength], [100, 199, 200])
        let unknown = ContentRange(" bytes 0-0/*")
        XCTAssertEqual([unknown?.first, unknown?.last], [0, 0])
        XCTAssertNotNil(unknown)
        XCTAssertNil(unknown?.completeLength)
        XCTAssertEqual(ContentRange("bytes 100-199/200")?.reachesEnd, true)
        XCTAssertEqual(ContentRange("bytes 100-149/200")?.reachesEnd, false)
        XCTAssertEqual(ContentRange("bytes 100-149/*")?.reachesEnd, true)
    }

    func testMalformedContentRangeIsRefused() {
        for value in ["", "bytes", "bytes */200", "items 0-1/2", "bytes 5-4/10", "bytes 0-10/10", "bytes -1-5/10",
                      "bytes 0-5", "bytes 0-5/10/20", "bytes 0x1-5/10", "bytes 0-5/ten", "bytes 0 -5/10",
                      "bytes 0-99999999999999999999/*"] {
            XCTAssertNil(ContentRange(value), value)
        }
    }
}
