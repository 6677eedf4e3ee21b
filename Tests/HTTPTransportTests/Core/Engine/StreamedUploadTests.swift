import Foundation
import HTTPTransport
import XCTest

/// Request bodies produced while they are sent (`uploading(stream:length:)`,
/// `uploading(length:producer:)`), on every send form, against the local server's echo and
/// `/upload` routes.
final class StreamedUploadTests: XCTestCase {
    let transport = HTTPTransport()

    /// Chunks of distinct bytes, and all of them joined.
    private func chunks(_ count: Int, size: Int = 10_000) -> ([Data], Data) {
        let parts = (0..<count).map { Data(repeating: UInt8(truncatingIfNeeded: $0 * 7 + 1), count: size) }
        return (parts, parts.reduce(Data(), +))
    }

    private func sequence(_ parts: [Data], failing: Bool = false) -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            for part in parts { continuation.yield(part) }
            continuation.finish(throwing: failing ? SourceFailure() : nil)
        }
    }

    private func post(_ path: String = "/anything") -> HTTPRequest {
        HTTPRequest(httpMethod: .post, endpoint: server.http + path)
    }

    /// The echo's body bytes and its headers (lower-cased names).
    private func echoed(_ response: HTTPResponse) throws -> (Data, [String: String]) {
        let echo = try echo(response)
        let body = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(echo["body_base64"] as? String)))
        return (body, try XCTUnwrap(echo["headers_dict"] as? [String: String]))
    }

    func testAProducerOnABlockingSendIsCalledOnTheSendingThreadAndSentChunked() throws {
        let (parts, whole) = chunks(20)
        let source = ChunkSource(parts)
        let sender = pthread_self()
        let response = try sendOK(transport, post().uploading { try source.next(expectingThread: sender) })
        let (body, headers) = try echoed(response)
        XCTAssertEqual(body, whole)
        XCTAssertEqual(headers["transfer-encoding"], "chunked")
        XCTAssertNil(headers["content-length"])
        XCTAssertEqual(source.callsOffThread, 0)
    }

    func testAnAsyncSequenceOnABlockingSendIsSentWithItsLengthAsContentLength() throws {
        let (parts, whole) = chunks(20)
        let response = try sendOK(transport, post().uploading(stream: sequence(parts), length: Int64(whole.count)))
        let (body, headers) = try echoed(response)
        XCTAssertEqual(body, whole)
        XCTAssertEqual(headers["content-length"], "\(whole.count)")
        XCTAssertNil(headers["transfer-encoding"])
    }

    func testBothSourcesOnAsyncSendsArriveWhole() async throws {
        let (parts, whole) = chunks(30)
        let requests = [
            post().uploading(length: Int64(whole.count), producer: ChunkSource(parts).next),
            post().uploading(producer: ChunkSource(parts).next),
            post().uploading(stream: sequence(parts), length: Int64(whole.count)),
            post().uploading(stream: sequence(parts)),
        ]
        for (index, request) in requests.enumerated() {
            let (body, headers) = try echoed(try await transport.send(request))
            XCTAssertEqual(body, whole, "request \(index)")
            XCTAssertEqual(headers["transfer-encoding"], index % 2 == 0 ? nil : "chunked", "request \(index)")
        }
    }

    func testAFanOutSendsStreamedBodiesOnTheLoop() throws {
        let (parts, whole) = chunks(30)
        let results = transport.send(requests: [post().uploading(producer: ChunkSource(parts).next),
                                                post().uploading(stream: sequence(parts), length: Int64(whole.count))])
        XCTAssertEqual(results.count, 2)
        for result in results {
            XCTAssertEqual(try echoed(try result.get()).0, whole)
        }
    }

    func testAStreamSendsAStreamedBody() async throws {
        let (parts, whole) = chunks(10)
        let stream = try await transport.stream(post().uploading(stream: sequence(parts)))
        var received = Data()
        for try await chunk in stream.body { received.append(chunk) }
        let echo = try XCTUnwrap(try JSONSerialization.jsonObject(with: received) as? [String: Any])
        XCTAssertEqual(Data(base64Encoded: try XCTUnwrap(echo["body_base64"] as? String)), whole)
    }

    func testABodyOfAnotherLengthThanDeclaredFailsWithEncodingFailed() async throws {
        let (parts, whole) = chunks(5)
        for declared in [Int64(whole.count - 1), Int64(whole.count + 1), 1] {
            let blocking = transport.send(request: post().uploading(length: declared, producer: ChunkSource(parts).next))
            XCTAssertEqual(blocking.error?.code, .encodingFailed, "declared \(declared)")
            do {
                _ = try await transport.send(post().uploading(stream: sequence(parts), length: declared))
                XCTFail("a body of another length was sent")
            } catch {
                XCTAssertEqual(error.code, .encodingFailed, "declared \(declared)")
            }
        }
    }

    func testAThrowingSourceFailsWithEncodingFailedCarryingItsDescription() async throws {
        let (parts, _) = chunks(3)
        let blocking = transport.send(request: post().uploading(producer: ChunkSource(parts, failing: true).next))
        XCTAssertEqual(blocking.error?.code, .encodingFailed)
        XCTAssertTrue(blocking.error?.message.contains("SourceFailure") == true, blocking.error?.message ?? "")
        do {
            _ = try await transport.send(post().uploading(stream: sequence(parts, failing: true)))
            XCTFail("a failing sequence was sent")
        } catch {
            XCTAssertEqual(error.code, .encodingFailed)
        }
    }

    func testABlockingSendWaitingForASequenceEndsAtItsTimeout() {
        let (silent, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        continuation.yield(Data("first".utf8))
        let request = HTTPRequest(httpMethod: .post, endpoint: server.http + "/upload", timeout: 0.5).uploading(stream: silent)
        let started = ContinuousClock.now
        XCTAssertEqual(transport.send(request: request).error?.code, .timeout)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        continuation.finish()
    }

    func testAThrowingSourceDropsItsConnection() throws {
        let first = try echo(try sendOK(transport, post()))["connection_id"] as? Int
        let (parts, _) = chunks(3)
        XCTAssertEqual(transport.send(request: post().uploading(producer: ChunkSource(parts, failing: true).next)).error?.code,
                       .encodingFailed)
        let after = try echo(try sendOK(transport, post()))["connection_id"] as? Int
        XCTAssertNotNil(first)
        XCTAssertNotEqual(first, after)
    }

    func testACurlCommandReadsAStreamedBodyFromItsInput() throws {
        let command = transport.curlCommand(for: post().uploading(producer: { nil }))
        XCTAssertTrue(command.contains("--data-binary @-"), command)
    }

    func testAStreamedBodyThatWasReadIsNotRetriedEvenWhenThePolicyWould() throws {
        let key = UUID().uuidString
        let retrying = HTTPTransport(retrier: RetryPolicy(retriesNonIdempotentRequests: true, baseDelay: 0.01,
                                                         idempotencyKeyHeader: "Idempotency-Key"))
        let (parts, _) = chunks(3)
        let request = post("/flaky?key=\(key)&fail=1&status=503").uploading(producer: ChunkSource(parts).next)
        let result = retrying.send(request: request)
        XCTAssertEqual(result.error?.httpStatusCode?.rawValue, 503)
        let count = try echo(try sendOK(transport, HTTPRequest(endpoint: server.http + "/flaky/count?key=\(key)")))
        XCTAssertEqual(count["count"] as? Int, 1)
    }

    func testAnAsyncSendThatFailsBeforeReadingLeavesItsSourceUntouchedForTheRetry() async throws {
        // The loop must not start pulling the source before libcurl asks for the first byte: an
        // attempt that never connected would drop what it pulled, and the retry would send the rest.
        let pulls = Protected(0)
        let retrying = HTTPTransport(retrier: RetryPolicy(maxAttempts: 3, retriesNonIdempotentRequests: true, baseDelay: 0.01))
        let refused = HTTPRequest(httpMethod: .post, endpoint: "http://127.0.0.1:\(TestServer.closedPort())/upload")
            .uploading(length: 3) {
                pulls.withLock { $0 += 1 }
                return Data("abc".utf8)
            }
        do {
            _ = try await retrying.send(refused)
            XCTFail("nothing listens there")
        } catch {
            XCTAssertEqual(error.code, .cannotConnect, "the connection's failure, not a body's")
        }
        XCTAssertEqual(pulls.withLock { $0 }, 0, "no attempt read the body, so none pulled it")
    }

    func testA307WithAStreamedBodyIsTheResultNotFollowed() async throws {
        let (parts, _) = chunks(3)
        for status in [307, 308] {
            let request = post("/redirect-to?url=/anything&status_code=\(status)").uploading(producer: ChunkSource(parts).next)
            let result = transport.send(request: request)
            XCTAssertEqual(result.value?.httpStatus.rawValue ?? result.error?.httpStatusCode?.rawValue, status)
            let asyncRequest = post("/redirect-to?url=/anything&status_code=\(status)").uploading(stream: sequence(parts))
            let asyncResult = await transport.result(asyncRequest)
            switch asyncResult {
            case .success(let response): XCTAssertEqual(response.httpStatus.rawValue, status)
            case .failure(let error): XCTAssertEqual(error.httpStatusCode?.rawValue, status)
            }
        }
    }

    func testUploadProgressCountsTheBytesSent() async throws {
        let (parts, whole) = chunks(100)
        let sent = ProgressRecord()
        let control = TransferControl(progress: { sent.record($0.bytesSent); return true })
        _ = try transport.send(request: post("/upload").uploading(producer: ChunkSource(parts).next), control: control).get()
        XCTAssertEqual(sent.last, Int64(whole.count))
        let asyncSent = ProgressRecord()
        _ = try await transport.send(post("/upload").uploading(stream: sequence(parts)), progress: { asyncSent.record($0.bytesSent); return true })
        XCTAssertEqual(asyncSent.last, Int64(whole.count))
    }

    func testAProducerOnAnAsyncSendStaysAboutAMebibyteAheadOfTheSlowConnection() async throws {
        // 32 MiB to a server that reads 64 KiB pieces 4 ms apart; the producer, on a thread of
        // its own, would otherwise be done at once.
        let total: Int64 = 32 << 20
        let ahead = AheadRecord()
        let response = try await transport.send(
            post("/upload?pause_ms=4").uploading(length: total) { ahead.produce(256 << 10, upTo: total) },
            progress: { ahead.sent($0.bytesSent); return true })
        XCTAssertEqual(try echo(response)["size"] as? Int, Int(total))
        // The pipe's 1 MiB, libcurl's buffer and the sockets' buffers; progress reports lag too.
        XCTAssertLessThan(ahead.mostAhead, 12 << 20)
    }

    /// 256 MiB (`STREAMED_UPLOAD_MIB` for another size, e.g. 1024 for a one-off measurement)
    /// to a server reading slowly: the resident memory stays within a few MiB of where it was.
    func testResidentMemoryStaysFlatDuringALargeStreamedUpload() async throws {
        let mib = ProcessInfo.processInfo.environment["STREAMED_UPLOAD_MIB"].flatMap(Int64.init) ?? 256
        let total = mib << 20
        let ahead = AheadRecord()
        let before = residentKiB()
        let most = Counter()
        let response = try await transport.send(
            post("/upload?pause_ms=0.2").uploading(length: total) { ahead.produce(256 << 10, upTo: total) },
            progress: { ahead.sent($0.bytesSent); most.raise(to: residentKiB()); return true })
        XCTAssertEqual(try echo(response)["size"] as? Int, Int(total))
        print("streamed upload of \(mib) MiB: RSS before \(before / 1024) MiB, most during \(most.current / 1024) MiB, "
              + "producer ahead at most \(ahead.mostAhead >> 10) KiB")
        // (AddressSanitizer's quarantine keeps freed memory resident on purpose.)
        if ProcessInfo.processInfo.environment["ASAN_OPTIONS"] == nil {
            XCTAssertLessThan(most.current - before, 32 << 10)
        }
    }

    func testCancellingAnAsyncSendMidUploadEndsItAsCancelled() async throws {
        // (A semaphore, not an XCTest expectation: under LeakSanitizer XCTest's `fulfillment(of:)`
        // reports the weak reference it keeps to the expectation.)
        let started = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let calls = Counter()
        let request = post("/upload").uploading { () -> Data? in
            if calls.increment() == 2 {
                started.signal()
                gate.wait()
            }
            return Data(count: 64 << 10)
        }
        let transport = transport
        let task = Task { try await transport.send(request) }
        let didStart = await Task.detached { started.wait(timeout: .now() + 10) == .success }.value
        XCTAssertTrue(didStart, "the upload started")
        task.cancel()
        let result = await task.result
        gate.signal()
        guard case .failure(let error) = result else { return XCTFail("the cancelled upload succeeded") }
        XCTAssertEqual((error as? HTTPTransportError)?.code, .cancelled)
    }
}

extension HTTPTransport {
    /// An async send as a result.
    func result(_ request: HTTPRequest) async -> Swift.Result<HTTPResponse, HTTPTransportError> {
        do {
            return .success(try await send(request))
        } catch {
            return .failure(error)
        }
    }
}

/// A producer's chunks, handed out in turn from any thread, recording the threads it ran on.
final class ChunkSource: @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [Data]
    private let failing: Bool
    private var offThread = 0

    init(_ parts: [Data], failing: Bool = false) {
        self.parts = parts.reversed()
        self.failing = failing
    }

    @Sendable func next() throws -> Data? {
        try lock.withLock {
            if parts.isEmpty, failing { throw SourceFailure() }
            return parts.popLast()
        }
    }

    func next(expectingThread thread: pthread_t) throws -> Data? {
        if pthread_equal(thread, pthread_self()) == 0 { lock.withLock { offThread += 1 } }
        return try next()
    }

    var callsOffThread: Int { lock.withLock { offThread } }
}

struct SourceFailure: Error, CustomStringConvertible {
    var description: String { "SourceFailure: the source broke" }
}

/// The last and largest byte counts a progress handler saw.
final class ProgressRecord: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int64] = []
    func record(_ value: Int64) { lock.withLock { values.append(value) } }
    var last: Int64? { lock.withLock { values.last } }
}

/// How far a producer got ahead of the bytes the connection took.
final class AheadRecord: @unchecked Sendable {
    private let lock = NSLock()
    private var produced: Int64 = 0
    private var bytesSent: Int64 = 0
    private var most: Int64 = 0

    func produce(_ size: Int, upTo total: Int64) -> Data? {
        lock.withLock {
            guard produced < total else { return nil }
            let count = Int(min(Int64(size), total - produced))
            produced += Int64(count)
            most = max(most, produced - bytesSent)
            return Data(repeating: UInt8(truncatingIfNeeded: produced >> 18), count: count)
        }
    }

    func sent(_ value: Int64) { lock.withLock { bytesSent = max(bytesSent, value) } }
    var mostAhead: Int64 { lock.withLock { most } }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() -> Int { lock.withLock { value += 1; return value } }
    func raise(to candidate: Int) { lock.withLock { value = max(value, candidate) } }
    var current: Int { lock.withLock { value } }
}

/// This process's resident memory (VmRSS) in KiB.
func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}
