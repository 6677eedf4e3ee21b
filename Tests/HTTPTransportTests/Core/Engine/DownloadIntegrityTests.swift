import Foundation
import HTTPTransport
import XCTest

/// A file download holds exactly the body of the URL asked for, or nothing: a resume never
/// splices another URL's bytes, a partial answer to a whole-file request is refused, and the
/// size cap counts the bytes written (decoded), so a small gzip body cannot fill the disk.
final class DownloadIntegrityTests: XCTestCase {
    let transport = HTTPTransport()
    var directory: URL!

    override func setUpWithError() throws {
        directory = try temporaryDirectory("download-integrity")
    }

    private func transport(maxResponseSize: Int64) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.maxResponseSize = maxResponseSize
        return HTTPTransport(session: Session(configuration: configuration))
    }

    /// A destination that already holds "old", to check that a failure leaves it as it was.
    private func existingDestination(_ name: String) throws -> URL {
        let destination = directory.appendingPathComponent(name)
        try Data("old".utf8).write(to: destination)
        return destination
    }

    private func assertUntouched(_ destination: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try Data(contentsOf: destination), Data("old".utf8), file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path + ".part"), file: file, line: line)
    }

    // MARK: Resume keeps to its URL

    func testResumeNeverSplicesAnotherURLsBody() throws {
        let size = 1_000_000
        let destination = directory.appendingPathComponent("data.bin")
        let first = HTTPRequest(endpoint: server.http + "/range-cut/\(size)?key=\(UUID().uuidString)")
        XCTAssertEqual(transport.send(request: first.downloading(to: destination, resume: true)).error?.code, .badResponse)
        // Another URL whose entity has the same ETag ("range-N") and length, and other bytes.
        let other = HTTPRequest(endpoint: server.http + "/range-shifted/\(size)?shift=7").downloading(to: destination, resume: true)
        let response = try sendOK(transport, other)
        XCTAssertEqual(response.httpStatus, .ok, "started over, no range asked")
        XCTAssertEqual(try sha256(of: destination), response.header(named: "X-Entity-SHA256"))
        XCTAssertEqual(try Data(contentsOf: destination), pattern(size, shift: 7))
    }

    func testResumeFollowsARedirectToThePartsURL() throws {
        let size = 1_000_000
        let destination = directory.appendingPathComponent("data.bin")
        let target = "/range-cut/\(size)?key=\(UUID().uuidString)"
        let query = try XCTUnwrap(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let request = HTTPRequest(endpoint: server.http + "/redirect-to?url=\(query)").downloading(to: destination, resume: true)
        XCTAssertEqual(transport.send(request: request).error?.code, .badResponse)
        let response = try sendOK(transport, request)
        XCTAssertEqual(response.httpStatus, .partialContent, "the redirect's target continues its own part")
        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
    }

    func testUnreadableResumeRecordStartsOver() throws {
        let size = 300_000
        let destination = directory.appendingPathComponent("data.bin")
        try Data(repeating: 0xEE, count: 1000).write(to: URL(fileURLWithPath: destination.path + ".part"))
        // A bare validator, as an older format or a foreign tool might leave: no URL to check.
        try Data("\"range-\(size)\"".utf8).write(to: URL(fileURLWithPath: destination.path + ".part.validator"))
        let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/range/\(size)").downloading(to: destination, resume: true))
        XCTAssertEqual(response.httpStatus, .ok)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
    }

    // MARK: Partial answers

    /// A part of `size / 2` bytes of /partial-always/`size` with a record naming `validator`.
    private func partOfPartialAlways(_ size: Int, validator: String, at destination: URL) throws -> HTTPRequest {
        let endpoint = server.http + "/partial-always/\(size)"
        try pattern(size / 2).write(to: URL(fileURLWithPath: destination.path + ".part"))
        try writeResumeRecord(url: endpoint, validator: validator, besides: destination)
        return HTTPRequest(endpoint: endpoint).downloading(to: destination, resume: true)
    }

    func testResumeAnsweredAtTheWrongOffsetDiscardsThePart() throws {
        let destination = directory.appendingPathComponent("offset.bin")
        // The server answers with the second half whatever is asked: bytes 50000-, not 1000-.
        let request = try partOfPartialAlways(100_000, validator: "\"partial-100000\"", at: destination)
        XCTAssertEqual(truncate(destination.path + ".part", 1000), 0)
        let result = transport.send(request: request)
        XCTAssertEqual(result.error?.code, .badResponse)
        XCTAssertTrue(result.error?.message.contains("wrong place") ?? false, result.error?.message ?? "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path + ".part"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path + ".part.validator"))
    }

    func testResumeAnsweredWithAnotherEntityTagDiscardsThePart() throws {
        let destination = directory.appendingPathComponent("version.bin")
        // The offset matches, but the server ignores If-Range and sends "partial-100000".
        let request = try partOfPartialAlways(100_000, validator: "\"version-1\"", at: destination)
        let result = transport.send(request: request)
        XCTAssertEqual(result.error?.code, .badResponse)
        XCTAssertTrue(result.error?.message.contains("another version") ?? false, result.error?.message ?? "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path + ".part"))
    }

    func testPartialContentToAWholeFileRequestFails() throws {
        let destination = try existingDestination("whole.bin")
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/partial-always/100000").downloading(to: destination))
        XCTAssertEqual(result.error?.code, .badResponse)
        XCTAssertEqual(result.error?.httpStatusCode, .partialContent)
        try assertUntouched(destination)
    }

    func testPartialContentToAResumeWithNothingToResumeFails() throws {
        let destination = try existingDestination("whole.bin")
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/partial-always/100000")
            .downloading(to: destination, resume: true))
        XCTAssertEqual(result.error?.code, .badResponse)
        try assertUntouched(destination)
    }

    func testPartialContentToTheRequestsOwnRangeIsSaved() throws {
        let destination = directory.appendingPathComponent("slice.bin")
        let request = HTTPRequest(endpoint: server.http + "/range/1000", headers: ["Range": "bytes=100-199"])
            .downloading(to: destination, resume: true)
        let response = try sendOK(transport, request)
        XCTAssertEqual(response.httpStatus, .partialContent)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(1000).subdata(in: 100..<200))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path + ".part.validator"), "a slice is not resumable")
    }

    // MARK: The size cap

    func testSessionCapAppliesToDownloads() throws {
        let destination = try existingDestination("big.bin")
        let result = transport(maxResponseSize: 1 << 20).send(request: HTTPRequest(endpoint: server.http + "/bytes/5000000")
            .downloading(to: destination))
        XCTAssertEqual(result.error?.code, .responseTooLarge)
        try assertUntouched(destination)
    }

    func testGzipBombIsStoppedAtTheSessionCap() throws {
        let destination = try existingDestination("bomb.bin")
        let result = transport(maxResponseSize: 1 << 20).send(request: HTTPRequest(endpoint: server.http + "/gzip-bomb/\(64 << 20)")
            .downloading(to: destination, resume: true))
        XCTAssertEqual(result.error?.code, .responseTooLarge)
        XCTAssertTrue(result.error?.message.contains("maxSize") ?? false, result.error?.message ?? "")
        try assertUntouched(destination)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path + ".part.validator"))
    }

    func testMaxSizeRaisesTheCapForOneDownload() throws {
        let destination = directory.appendingPathComponent("bomb.bin")
        let response = try sendOK(transport(maxResponseSize: 1 << 20), HTTPRequest(endpoint: server.http + "/gzip-bomb/\(64 << 20)")
            .downloading(to: destination, maxSize: 64 << 20))
        XCTAssertEqual(entry(at: destination.path)?.st_size, off_t(64 << 20))
        XCTAssertEqual(try sha256(of: destination), response.header(named: "X-Decoded-SHA256"))
    }

    func testMaxSizeLowersTheCapForOneDownload() throws {
        let destination = try existingDestination("small.bin")
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/stream-bytes/5000")
            .downloading(to: destination, maxSize: 4999))
        XCTAssertEqual(result.error?.code, .responseTooLarge)
        try assertUntouched(destination)
    }

    func testCapCountsTheWholeFileOfAResumedDownload() throws {
        let size = 1_000_000
        let destination = directory.appendingPathComponent("resumed.bin")
        let endpoint = server.http + "/range-cut/\(size)?key=\(UUID().uuidString)"
        let first = transport.send(request: HTTPRequest(endpoint: endpoint).downloading(to: destination, resume: true))
        XCTAssertEqual(first.error?.code, .badResponse)
        // What is left (500,000 bytes) fits under 900,000; the whole file does not.
        let second = transport.send(request: HTTPRequest(endpoint: endpoint).downloading(to: destination, resume: true, maxSize: 900_000))
        XCTAssertEqual(second.error?.code, .responseTooLarge)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path + ".part"), "not resumable past the cap")
    }

    // MARK: Failures leave nothing behind

    func testFailedDownloadsLeaveTheDestinationAndNoDescriptorBehind() throws {
        let capped = transport(maxResponseSize: 1 << 20)
        let failures: [(String, Bool)] = [
            ("/fault/truncated", false), ("/fault/truncated", true), ("/partial-always/100000", false),
            ("/gzip-bomb/\(16 << 20)", true), ("/bytes/5000000", false), ("/status/500", true),
            ("/fault/close-before-response", false), ("/range-cut/300000?key=\(UUID().uuidString)", false),
        ]
        for (index, (path, resume)) in failures.enumerated() {
            let destination = try existingDestination("failed-\(index).bin")
            let result = capped.send(request: HTTPRequest(endpoint: server.http + path).downloading(to: destination, resume: resume))
            XCTAssertNotNil(result.error, path)
            try assertUntouched(destination)
        }
        XCTAssertEqual(try openDescriptors(under: directory), [])
    }
}
