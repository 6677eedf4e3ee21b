@testable import HTTPTransport
import XCTest

/// A stream's coded (compressed) body is decoded by the engine, no faster than it is read: a
/// paused stream holds about its buffer's 1 MiB whatever the coding and the compression ratio
/// (libcurl decoded all it read and held up to 64 MiB per paused stream), and reading it yields
/// exactly the decoded bytes a plain send gets.
final class CompressedStreamTests: XCTestCase {
    private let transport = HTTPTransport()
    /// The codings the server's /coded/<coding>/<n> sends ("raw-deflate": deflate without its
    /// zlib wrapper, sent as deflate).
    private let codings = ["gzip", "deflate", "raw-deflate", "br", "zstd"]

    /// The process's resident memory in bytes (/proc/self/statm).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    /// Whether resident memory means what it says: not under AddressSanitizer or ThreadSanitizer,
    /// whose quarantine and shadow memory grow it by themselves.
    static let measuresMemory = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") == nil
        && dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") == nil

    /// Reads a stream to its end, checking every byte against the server's pattern (byte i is
    /// i % 251); the count read.
    private func readPattern(_ stream: HTTPResponseStream, file: StaticString = #filePath, line: UInt = #line) async throws -> Int {
        var checker = PatternChecker()
        for try await chunk in stream.body where !checker.check(chunk) {
            XCTFail("byte \(checker.offset) differs from the pattern", file: file, line: line)
            return checker.offset
        }
        return checker.offset
    }

    func testTwelvePausedGzipBombStreamsHoldAboutAMebibyteEach() async throws {
        let before = Self.residentBytes()
        var streams: [HTTPResponseStream] = []
        for _ in 0..<12 {
            let stream = try await transport.stream(HTTPRequest(endpoint: server.http + "/gzip-bomb/\(256 << 20)"))
            await stream.channel.awaitPause()
            XCTAssertLessThanOrEqual(stream.channel.bufferedBytes, StreamBuffer.defaultLimit + StreamReceiver.pieceSize)
            streams.append(stream)
        }
        let grown = Self.residentBytes() - before
        print("12 paused gzip-bomb streams: resident memory \(before >> 20) MiB -> \((before + grown) >> 20) MiB")
        // (libcurl's decoding held about 64 MiB each: 773 MiB more.)
        if Self.measuresMemory { XCTAssertLessThan(grown, 12 * (4 << 20), "resident memory grew by \(grown >> 20) MiB") }
        var read = 0
        for try await chunk in streams[0].body { read += chunk.count }
        XCTAssertEqual(read, 256 << 20)
    }

    func testAPausedStreamHoldsItsBufferWhateverTheCodingAndReadsToTheDecodedBytes() async throws {
        // 256 MiB from a few hundred bytes (br) to about a mebibyte (gzip): libcurl decoded a
        // brotli or zstd body whole while paused, past its 64 MiB, and failed "Out of memory".
        for coding in codings {
            let stream = try await transport.stream(HTTPRequest(endpoint: server.http + "/coded/\(coding)/\(256 << 20)"))
            await stream.channel.awaitPause()
            XCTAssertLessThanOrEqual(stream.channel.bufferedBytes, StreamBuffer.defaultLimit + StreamReceiver.pieceSize, coding)
            let read = try await readPattern(stream)
            XCTAssertEqual(read, 256 << 20, coding)
        }
    }

    func testAStreamReadsTheSameBytesAsAPlainSendForEveryCoding() async throws {
        let size = 8 << 20
        for coding in codings + ["deflate,gzip"] {
            let endpoint = server.http + "/coded/\(coding)/\(size)"
            let plain = try sendOK(transport, HTTPRequest(endpoint: endpoint)).body
            var streamed = Data()
            for try await chunk in try await transport.stream(HTTPRequest(endpoint: endpoint)).body { streamed.append(chunk) }
            XCTAssertEqual(plain?.count, size, coding)
            XCTAssertTrue(streamed == plain, coding)
        }
    }

    func testTheBlockingHandlerGetsTheDecodedBytesForEveryCoding() throws {
        for coding in codings {
            let checker = Protected(PatternChecker())
            let response = try sendOK(transport, HTTPRequest(endpoint: server.http + "/coded/\(coding)/\(8 << 20)").streaming { chunk in
                checker.withLock { $0.check(chunk) }
            })
            XCTAssertNil(response.body)
            XCTAssertEqual(checker.value.offset, 8 << 20, coding)
            XCTAssertTrue(checker.value.matches, coding)
        }
    }

    func testABlockingHandlerGetsPiecesOfAtMostOnePieceFromAGzipBomb() throws {
        let largest = Protected(0)
        let total = Protected(0)
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/gzip-bomb/\(64 << 20)").streaming { chunk in
            largest.withLock { $0 = max($0, chunk.count) }
            total.withLock { $0 += chunk.count }
            return total.value < 8 << 20
        })
        XCTAssertEqual(result.error?.code, .cancelled)
        XCTAssertLessThanOrEqual(largest.value, StreamReceiver.pieceSize)
        XCTAssertLessThan(total.value, (8 << 20) + StreamReceiver.pieceSize)
    }

    func testACodedBodyCutShortFailsWithBadResponse() async throws {
        // (The chunked body itself ends properly: only the coded data inside it is cut.)
        for (coding, cut) in [("gzip", 20_000), ("deflate", 20_000), ("br", 100), ("zstd", 500)] {
            let stream = try await transport.stream(HTTPRequest(endpoint: server.http + "/coded/\(coding)/\(8 << 20)?cut=\(cut)"))
            do {
                for try await _ in stream.body {}
                XCTFail("no error for \(coding)")
            } catch {
                XCTAssertEqual(error.code, .badResponse, coding)
                XCTAssertTrue(error.message.contains("cut short") && error.message.contains(coding), error.message)
            }
        }
    }

    func testCorruptCodedDataFailsWithBadResponseNamingTheCoding() async throws {
        for coding in codings {
            do {
                // (Where the first chunk is corrupt, before the head was handed over, `stream` throws.)
                let stream = try await transport.stream(HTTPRequest(endpoint: server.http + "/coded/\(coding)/\(8 << 20)?corrupt=1"))
                for try await _ in stream.body {}
                XCTFail("no error for \(coding)")
            } catch {
                XCTAssertEqual(error.code, .badResponse, coding)
                XCTAssertTrue(error.message.contains("could not be decoded")
                              && error.message.contains(coding.replacingOccurrences(of: "raw-", with: "")), error.message)
            }
        }
    }

    func testAsyncEventStreamsOfAGzipBombHoldLittleWhileNotRead() async throws {
        let endpoint = server.http + "/coded-events/\(16 << 20)"  // 144 MiB of events, 150 KB on the wire
        let before = Self.residentBytes()
        var iterators: [ServerSentEventSequence.Iterator] = []
        for _ in 0..<6 {
            var iterator = transport.events(HTTPRequest(endpoint: endpoint)).makeAsyncIterator()
            let first = try await iterator.next()
            XCTAssertEqual(first?.data, "x")
            iterators.append(iterator)
        }
        // A stream of the same body, opened last on the same loop, paused too.
        let last = try await transport.stream(HTTPRequest(endpoint: endpoint))
        await last.channel.awaitPause()
        let grown = Self.residentBytes() - before
        print("6 unread event streams and a paused stream of a gzip bomb: resident memory grew by \(grown >> 20) MiB")
        if Self.measuresMemory { XCTAssertLessThan(grown, 7 * (4 << 20), "resident memory grew by \(grown >> 20) MiB") }
        var count = 1
        while count < 100_000, try await iterators[0].next()?.data == "x" { count += 1 }
        XCTAssertEqual(count, 100_000)
    }

    func testTheBlockingEventReaderGetsEveryEventOfAGzipBody() throws {
        let count = Protected(0)
        try transport.events(request: HTTPRequest(endpoint: server.http + "/coded-events/100000")) { event in
            count.withLock { $0 += event.data == "x" ? 1 : 0 }
            return count.value < 100_000
        }
        XCTAssertEqual(count.value, 100_000)
    }

    func testAnUnknownCodingPassesThroughAsItCameAsForAPlainSend() async throws {
        let endpoint = server.http + "/encoding/unknown?coding=foo"
        let plain = try sendOK(transport, HTTPRequest(endpoint: endpoint))
        let stream = try await transport.stream(HTTPRequest(endpoint: endpoint))
        var streamed = Data()
        for try await chunk in stream.body { streamed.append(chunk) }
        XCTAssertEqual(stream.header(named: "Content-Encoding"), "foo")
        XCTAssertEqual(streamed, plain.body)
    }

    func testAPlainSendOfAGzipBombPastTheLimitFailsWithResponseTooLarge() {
        var configuration = Session.Configuration()
        configuration.maxResponseSize = 1 << 20
        let capped = HTTPTransport(session: Session(configuration: configuration))
        let result = capped.send(request: HTTPRequest(endpoint: server.http + "/gzip-bomb/\(64 << 20)"))
        XCTAssertEqual(result.error?.code, .responseTooLarge)
        XCTAssertTrue(result.error?.message.contains("limit") ?? false, result.error?.message ?? "")
    }
}

/// Checks bytes in order against the server's pattern (byte i is i % 251) without building it.
struct PatternChecker: Sendable {
    private static let block: [UInt8] = (0..<(256 * 1024 + 251)).map { UInt8($0 % 251) }
    private(set) var offset = 0
    private(set) var matches = true

    /// `false` (and `matches` false) once a byte differs.
    mutating func check(_ chunk: Data) -> Bool {
        guard matches else { return false }
        var start = chunk.startIndex
        while start < chunk.endIndex {
            let count = min(chunk.endIndex - start, 256 * 1024)
            let phase = offset % 251
            let same = chunk[start..<(start + count)].withUnsafeBytes { bytes in
                Self.block.withUnsafeBytes { block in
                    guard let actual = bytes.baseAddress, let expected = block.baseAddress else { return false }
                    return memcmp(actual, expected + phase, count) == 0
                }
            }
            guard same else {
                matches = false
                return false
            }
            start += count
            offset += count
        }
        return true
    }
}
