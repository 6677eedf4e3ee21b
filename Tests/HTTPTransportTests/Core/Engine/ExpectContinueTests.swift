import Foundation
@testable import HTTPTransport
import XCTest

/// No request asks the server for `100 Continue`, whatever its body and method: the header list
/// turns libcurl's `Expect: 100-continue` off where libcurl would send it (a body of unknown size
/// or over 1 MiB, a streamed body under the request's own `Transfer-Encoding`, a multipart body),
/// and has no `Expect:` line where it would not (every other body: libcurl writes each line of
/// the list a byte at a time, about 1.1k instructions for this one). Run on libcurl 7.88 and 8.
final class ExpectContinueTests: XCTestCase {
    let transport = HTTPTransport()

    /// The echoed body's length and the request's header names (lower-cased).
    private func echoed(_ response: HTTPResponse) throws -> (Int, Set<String>) {
        let echo = try echo(response)
        let body = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(echo["body_base64"] as? String)))
        let names = try XCTUnwrap(echo["headers"] as? [[String]]).compactMap { $0.first?.lowercased() }
        return (body.count, Set(names))
    }

    private func bytes(_ count: Int) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13) }) }

    func testNoBodyKindIsAnnouncedWithExpectAndEachArrivesWhole() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("expect-\(UUID().uuidString).bin")
        try bytes(300_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let url = server.http + "/anything"
        let post = HTTPRequest(httpMethod: .post, endpoint: url)
        let put = HTTPRequest(httpMethod: .put, endpoint: url)
        let chunked = HTTPRequest(httpMethod: .patch, endpoint: url, headers: ["Transfer-Encoding": "chunked"])
        let parts = [bytes(400_000), bytes(400_000), bytes(400_000)]
        let multipart = FileUploadHTTPRequest(endpoint: url, fileMultipart: FileMultipart(
            data: bytes(5_000), partName: "file", fileName: "a.bin", mimeType: "application/octet-stream"))
        // On one transport, small and large in turn: the handle's list changes with the body.
        let sends: [(String, any HTTPRequestEnvelope, Int?)] = [
            ("copied 1 KiB", post.uploading(data: bytes(1_024)), 1_024),
            ("over 1 MiB in memory", post.uploading(data: bytes(1_100_000)), 1_100_000),
            ("copied again", post.uploading(data: bytes(10)), 10),
            ("200 KB in memory, streamed", post.uploading(data: bytes(200_000)), 200_000),
            ("a PUT of 200 KB", put.uploading(data: bytes(200_000)), 200_000),
            ("a chunked PATCH of 200 KB", chunked.uploading(data: bytes(200_000)), 200_000),
            ("a PUT of 2 KB", put.uploading(data: bytes(2_000)), 2_000),
            ("exactly 1 MiB, streamed", post.uploading(data: bytes(1_048_576)), 1_048_576),
            ("a file", post.uploading(file: file), 300_000),
            ("a stream of unknown length", post.uploading(producer: ChunkList(parts).next), 1_200_000),
            ("multipart", multipart, nil),
            ("an empty POST", post, 0),
        ]
        for (name, request, size) in sends {
            let response = try sendOK(transport, request)
            let (count, names) = try echoed(response)
            XCTAssertFalse(names.contains("expect"), name)
            if let size { XCTAssertEqual(count, size, name) } else { XCTAssertGreaterThan(count, 5_000, name) }
        }
    }

    func testOnlyTheBodiesLibcurlWouldAnnounceGetAnExpectLine() {
        let threshold = BodyOption.expectContinueThreshold
        XCTAssertEqual(threshold, 1_048_576)
        // (A multipart body's MIME handle, never read here.)
        let placeholder = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        defer { placeholder.deallocate() }
        let mime = TransferResource(transfer: 1, pointer: placeholder)
        let plain: HTTPHeaders = ["X-A": "b"]
        let chunked: HTTPHeaders = ["X-A": "b", "transfer-encoding": "chunked"]
        let cases: [(BodyOption, HTTPHeaders, Bool)] = [
            (.get, plain, false), (.head, plain, false), (.bodiless(method: "DELETE"), plain, false),
            (.copied(method: nil, body: Data(count: 10)), plain, false),
            (.copied(method: nil, body: Data(count: 10)), chunked, false),
            (.streamed(method: nil, size: 0), plain, false), (.streamed(method: nil, size: 0), chunked, false),
            (.streamed(method: "PUT", size: threshold), plain, false),
            (.streamed(method: "PUT", size: 100), chunked, true),
            (.streamed(method: nil, size: threshold + 1), plain, true), (.streamed(method: nil, size: -1), plain, true),
            (.multipart(method: nil, mime: mime), plain, true),
        ]
        for (body, headers, expected) in cases {
            XCTAssertEqual(body.mayExpectContinue(headers: headers), expected, "\(body) \(headers)")
            let lines = HeaderListSource(headers: headers, turnsOffExpect: body.mayExpectContinue(headers: headers))
                .lines(userAgent: "UA")
            XCTAssertEqual(lines.contains("Expect:"), expected, "\(body) \(headers)")
        }
        // The request's own Expect is kept as it is, and not doubled.
        let own = HeaderListSource(headers: ["Expect": "100-continue"], turnsOffExpect: true).lines(userAgent: "UA")
        XCTAssertEqual(own.filter { $0.lowercased().hasPrefix("expect") }, ["Expect: 100-continue"])
    }
}

/// A producer of the given chunks, then the end.
private final class ChunkList: @unchecked Sendable {
    private let lock = NSLock()
    private var chunks: [Data]

    init(_ chunks: [Data]) { self.chunks = chunks }

    func next() throws -> Data? {
        lock.withLock { chunks.isEmpty ? nil : chunks.removeFirst() }
    }
}
