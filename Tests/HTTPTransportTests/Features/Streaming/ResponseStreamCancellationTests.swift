@testable import HTTPTransport
import XCTest

/// Stopping a stream: breaking out of the loop, `cancel()`, cancelling the task or dropping the
/// stream stops the transfer at once and releases its connection and thread; the transport
/// keeps working (counted through /proc/self).
final class ResponseStreamCancellationTests: XCTestCase {
    private let transport = HTTPTransport()
    private var endless: HTTPRequest { HTTPRequest(endpoint: server.http + "/endless") }

    private func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    /// The library's transfer threads alive now (named "HTTPTransport.async", cut to 15 bytes).
    private func transferThreads() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").filter { task in
            let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return name?.hasPrefix("HTTPTransport") == true
        }.count
    }

    /// Runs `stop` on a stream of an endless body once the transfer paused, then checks that the
    /// connection and the thread were given back and the transport still works.
    private func assertStopReleasesEverything(_ stop: (inout HTTPResponseStream?) async throws -> Void) async throws {
        // A first round opens what stays open (the transfer thread, the server's pipes).
        for round in 0..<3 {
            let descriptors = try openDescriptors()
            let threads = try transferThreads()
            var stream: HTTPResponseStream? = try await transport.stream(endless)
            let channel = try XCTUnwrap(stream?.channel)
            await channel.awaitPause()
            try await stop(&stream)
            await channel.awaitTransferEnd()
            if round > 0 {
                XCTAssertLessThanOrEqual(try openDescriptors(), descriptors, "round \(round)")
                XCTAssertLessThanOrEqual(try transferThreads(), threads, "round \(round)")
            }
            _ = stream
        }
        XCTAssertNotNil(try sendOK(transport, HTTPRequest(endpoint: server.http + "/json")).body)
    }

    func testBreakingOutOfTheLoopStopsTheTransfer() async throws {
        try await assertStopReleasesEverything { stream in
            var chunks = 0
            for try await _ in try XCTUnwrap(stream).body {
                chunks += 1
                if chunks == 3 { break }
            }
        }
    }

    func testCancelStopsTheTransferAndTheReaderGetsCancelled() async throws {
        try await assertStopReleasesEverything { stream in
            let stream = try XCTUnwrap(stream)
            stream.cancel()
            do {
                for try await _ in stream.body {}
                XCTFail("the body did not fail")
            } catch {
                XCTAssertEqual((error as? HTTPTransportError)?.code, .cancelled)
            }
        }
    }

    func testCancellingTheReadingTaskStopsTheTransfer() async throws {
        try await assertStopReleasesEverything { stream in
            let stream = try XCTUnwrap(stream)
            let reader = Task {
                var bytes = 0
                for try await chunk in stream.body { bytes += chunk.count }
                return bytes
            }
            reader.cancel()
            let outcome = await reader.result
            XCTAssertEqual((outcome.error as? HTTPTransportError)?.code, .cancelled, "\(outcome)")
        }
    }

    func testDroppingTheStreamStopsTheTransfer() async throws {
        try await assertStopReleasesEverything { stream in
            stream = nil
        }
    }

    func testCancellingTheTaskWaitingForTheHeadStopsTheTransfer() async throws {
        let slow = HTTPRequest(endpoint: server.http + "/delay/10")
        let transport = transport
        let opening = Task { try await transport.stream(slow) }
        opening.cancel()
        let started = ContinuousClock.now
        let outcome = await opening.result
        XCTAssertEqual((outcome.error as? HTTPTransportError)?.code, .cancelled)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
    }
}

private extension Result {
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
