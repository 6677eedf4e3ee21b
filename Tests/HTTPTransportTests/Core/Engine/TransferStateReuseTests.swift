import CCurl
import Foundation
@testable import HTTPTransport
import XCTest

/// A handle's transfer state serves its transfers one after the other (`begin`, then `end`):
/// after `end` it holds nothing of the transfer (no file, no MIME body, no body, no error, no
/// reference to the caller's closures), so a handle idle in the pool keeps nothing alive and
/// the next transfer starts as on a new handle.
final class TransferStateReuseTests: XCTestCase {
    private final class Owner: Sendable {}

    private func lines(_ text: [String]) -> [[UInt8]] { text.map { Array(($0 + "\r\n").utf8) } }

    func testEndClosesTheUploadFileAndLetsGoOfWhatTheTransferReferredTo() throws {
        let handle = try XCTUnwrap(EasyHandle())
        let state = handle.transferState
        weak var owner: Owner?
        do {
            let strong = Owner()
            owner = strong
            state.begin(control: TransferControl(progress: { _ in _ = strong; return true }, cancellation: CancellationHandle()),
                        requestURL: "http://127.0.0.1/a", maxResponseSize: 1_000)
        }
        let descriptor = open("/dev/null", O_RDONLY)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        let file = FileSource(descriptor: descriptor)
        state.source = file
        XCTAssertEqual(Data(repeating: 0x61, count: 10).withUnsafeBytes { state.receiveBody($0) }, 10)
        state.storedError = HTTPTransportError(code: .cancelled, message: "x")
        state.requestsStarted = 2

        state.end()

        XCTAssertEqual(fcntl(descriptor, F_GETFD), -1, "the upload file is closed")
        XCTAssertEqual(file.descriptor, -1)
        XCTAssertNil(state.source)
        XCTAssertNil(state.storedError)
        XCTAssertEqual(state.requestsStarted, 0)
        XCTAssertNil(state.control.progress)
        XCTAssertNil(state.control.cancellation)
        XCTAssertNil(owner, "the progress handler's captures are released with the transfer")
        XCTAssertFalse(state.hasBody, "a body nobody took is dropped")
        XCTAssertLessThanOrEqual(state.bodyCapacity, MemoryBody.keptCapacity, "only a small buffer is kept for the next body")
    }

    func testTheNextTransferStartsWithAnEmptyHeadAndItsOwnLimit() throws {
        let handle = try XCTUnwrap(EasyHandle())
        let state = handle.transferState
        state.begin(control: TransferControl(), requestURL: "http://127.0.0.1/a", maxResponseSize: 1_000)
        for line in lines(["HTTP/1.1 404 Not Found", "X-First: 1", "Content-Length: 10", ""]) {
            line.withUnsafeBytes { state.receiveHeaderLine($0) }
        }
        XCTAssertEqual(state.statusCode, 404)
        state.end()

        state.begin(control: TransferControl(), requestURL: "http://127.0.0.1/b", maxResponseSize: 5)
        XCTAssertNil(state.statusCode)
        XCTAssertFalse(state.headersComplete)
        XCTAssertNil(state.declaredContentLength)
        XCTAssertTrue(state.headers.isEmpty)
        XCTAssertEqual(state.requestURL, "http://127.0.0.1/b")
        XCTAssertEqual(Data(repeating: 0x61, count: 6).withUnsafeBytes { state.receiveBody($0) }, 0)
        XCTAssertEqual(state.storedError?.code, .responseTooLarge, "the new limit applies")
        state.end()
    }

    /// Through the engine, one handle: bodies on both sides of `MemoryBody.keptCapacity` (copied
    /// out of the kept buffer, or handed over) come out whole, with their figures, one after the
    /// other, in either order, blocking and async.
    func testBodiesCopiedOrHandedOverArriveWholeOnOneHandle() async throws {
        var configuration = Session.Configuration()
        configuration.maxIdleHandles = 1
        let transport = HTTPTransport(session: Session(configuration: configuration))
        let kept = MemoryBody.keptCapacity
        for (index, size) in [10, kept, kept + 1, 300_000, 7, kept - 1].enumerated() {
            let request = HTTPRequest(endpoint: server.http + "/bytes/\(size)")
            let response = index.isMultiple(of: 2) ? try transport.send(request: request).get() : try await transport.send(request)
            XCTAssertEqual(response.body, pattern(size), "body of \(size) bytes")
            XCTAssertEqual(response.metrics.bytesReceived, Int64(size))
            XCTAssertEqual(response.header(named: "Content-Length"), "\(size)")
        }
    }

    func testAHandleSendsAfterAFailedTransferExactlyAsANewOne() throws {
        // Through the engine: a refused size, then a small body, on a transport with one handle.
        var configuration = Session.Configuration()
        configuration.maxIdleHandles = 1
        configuration.maxResponseSize = 64
        let transport = HTTPTransport(session: Session(configuration: configuration))
        let large = transport.send(request: HTTPRequest(endpoint: server.http + "/bytes/1000"))
        XCTAssertEqual(large.error?.code, .responseTooLarge)
        for _ in 0..<3 {
            let small = try transport.send(request: HTTPRequest(endpoint: server.http + "/bytes/10")).get()
            XCTAssertEqual(small.body?.count, 10)
            XCTAssertEqual(small.httpStatus, .ok)
        }
    }
}
