import Foundation
import HTTPTransport
import XCTest

/// Uploads and downloads of large bodies: streamed, checked by hash on the other side, written
/// atomically, resumable, cancellable.
final class LargeBodyTests: XCTestCase {
    let transport = HTTPTransport()
    var directory: URL!

    override func setUpWithError() throws {
        directory = try temporaryDirectory("large")
    }

    /// A file of `size` pseudo-random bytes, and its SHA-256.
    private func makeFile(_ name: String, size: Int) throws -> (URL, String) {
        let url = directory.appendingPathComponent(name)
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        let random = try XCTUnwrap(FileHandle(forReadingAtPath: "/dev/urandom"))
        var remaining = size
        while remaining > 0 {
            let count = min(remaining, 1 << 20)
            handle.write(random.readData(ofLength: count))
            remaining -= count
        }
        try handle.close()
        try random.close()
        return (url, try sha256(of: url))
    }

    // MARK: Uploads

    func testMultipartFileUploadIsStreamedAndArrivesIntact() throws {
        let (file, hash) = try makeFile("upload.bin", size: 20 << 20)
        let request = FileUploadHTTPRequest(
            endpoint: server.http + "/upload",
            fileMultipart: FileMultipart(fileURL: file, partName: "file", fileName: "upload.bin", mimeType: "application/octet-stream"))
            .with(parameters: ["note": "hello"], encoding: .form)
        let echo = try echo(try XCTUnwrap(transport.send(request: request).value))
        let parts = try XCTUnwrap(echo["multipart"] as? [[String: Any]])
        XCTAssertEqual(parts.first?["name"] as? String, "file")
        XCTAssertEqual(parts.first?["filename"] as? String, "upload.bin")
        XCTAssertEqual(parts.first?["size"] as? Int, 20 << 20)
        XCTAssertEqual(parts.first?["sha256"] as? String, hash)
        XCTAssertEqual(parts.last?["name"] as? String, "note")
        XCTAssertEqual(parts.last?["text"] as? String, "hello")
    }

    func testRawFilePutIsStreamedAndArrivesIntact() throws {
        let (file, hash) = try makeFile("put.bin", size: 50 << 20)
        let request = HTTPRequest(httpMethod: .put, endpoint: server.http + "/upload").uploading(file: file)
        let response = try XCTUnwrap(transport.send(request: request).value)
        let echo = try echo(response)
        XCTAssertEqual(echo["method"] as? String, "PUT")
        XCTAssertEqual(echo["size"] as? Int, 50 << 20)
        XCTAssertEqual(echo["sha256"] as? String, hash)
        XCTAssertEqual(response.metrics.bytesSent, Int64(50 << 20))
    }

    func testDataUploadArrivesIntact() throws {
        let (file, hash) = try makeFile("data.bin", size: 5 << 20)
        let data = try Data(contentsOf: file)
        let echo = try echo(try XCTUnwrap(transport.send(request: DataUploadHTTPRequest(endpoint: server.http + "/upload", data: data)).value))
        XCTAssertEqual(echo["sha256"] as? String, hash)
        XCTAssertEqual(echo["method"] as? String, "POST")
    }

    // MARK: Downloads

    func testDownloadGoesStraightToTheFile() throws {
        let destination = directory.appendingPathComponent("download.bin")
        let response = try XCTUnwrap(transport.send(request: HTTPRequest(endpoint: server.http + "/bytes/30000000")
            .downloading(to: destination)).value)
        XCTAssertEqual(response.fileURL, destination)
        XCTAssertNil(response.body)
        XCTAssertEqual(try sha256(of: destination), response.header(named: "X-SHA256"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path + ".part"))
    }

    func testFailedDownloadLeavesTheDestinationUntouched() throws {
        let destination = directory.appendingPathComponent("keep.txt")
        try Data("old".utf8).write(to: destination)
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/fault/truncated").downloading(to: destination))
        XCTAssertEqual(result.error?.code, .badResponse)
        XCTAssertEqual(try Data(contentsOf: destination), Data("old".utf8))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path + ".part"))
    }

    func testErrorStatusBodyStaysInTheErrorNotTheFile() throws {
        let destination = directory.appendingPathComponent("missing.bin")
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/status/404?message=gone").downloading(to: destination))
        XCTAssertEqual(result.error?.httpStatusCode, .notFound)
        XCTAssertEqual(result.error?.responseBodyErrorMessage, "gone")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
    }

    func testCutDownloadResumesWithARangeRequest() throws {
        let size = 8_000_000
        let destination = directory.appendingPathComponent("resumed.bin")
        let request = HTTPRequest(endpoint: server.http + "/range-cut/\(size)?key=\(UUID().uuidString)")
            .downloading(to: destination, resume: true)
        let first = transport.send(request: request)
        XCTAssertEqual(first.error?.code, .badResponse)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        let partial = try FileManager.default.attributesOfItem(atPath: destination.path + ".part")[.size] as? Int
        XCTAssertEqual(partial, size / 2)

        let second = try XCTUnwrap(transport.send(request: request).value)
        XCTAssertEqual(second.httpStatus, .partialContent)
        XCTAssertEqual(second.metrics.bytesReceived, Int64(size - size / 2))
        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(second.suggestedFilename, "data-\(size).bin")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path + ".part"))
    }

    func testResumeStartsOverWhenTheServerIgnoresTheRange() throws {
        let destination = directory.appendingPathComponent("restart.bin")
        try Data(repeating: 0xEE, count: 1000).write(to: URL(fileURLWithPath: destination.path + ".part"))
        try writeResumeRecord(url: server.http + "/bytes/300000", validator: "\"stale\"", besides: destination)
        let response = try XCTUnwrap(transport.send(request: HTTPRequest(endpoint: server.http + "/bytes/300000")
            .downloading(to: destination, resume: true)).value)
        XCTAssertEqual(response.httpStatus, .ok)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(300_000))
    }

    func testResumeWithAChangedEntityStartsOver() throws {
        let size = 400_000
        let destination = directory.appendingPathComponent("changed.bin")
        try Data(repeating: 0xEE, count: 1000).write(to: URL(fileURLWithPath: destination.path + ".part"))
        try writeResumeRecord(url: server.http + "/range/\(size)", validator: "\"another-version\"", besides: destination)
        let response = try XCTUnwrap(transport.send(request: HTTPRequest(endpoint: server.http + "/range/\(size)")
            .downloading(to: destination, resume: true)).value)
        XCTAssertEqual(response.httpStatus, .ok, "If-Range did not match: the whole entity is sent")
        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
    }

    func testUnwritableDestinationFailsWithFileIO() throws {
        let notADirectory = directory.appendingPathComponent("file")
        try Data("x".utf8).write(to: notADirectory)
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/bytes/1000")
            .downloading(to: notADirectory.appendingPathComponent("out.bin")))
        XCTAssertEqual(result.error?.code, .fileIO)
    }

    func testFullDiskFailsCleanlyWithFileIO() throws {
        let mountPoint = directory.appendingPathComponent("tiny")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        guard getuid() == 0, run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint.path]) == 0 else {
            throw XCTSkip("mounting a tiny tmpfs needs root")
        }
        defer { _ = run("/bin/umount", [mountPoint.path]) }
        let destination = mountPoint.appendingPathComponent("big.bin")
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/bytes/5000000").downloading(to: destination))
        XCTAssertEqual(result.error?.code, .fileIO)
        XCTAssertTrue(result.error?.message.contains("No space left") ?? false, result.error?.message ?? "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path + ".part"))
        XCTAssertTrue(transport.send(request: HTTPRequest(endpoint: server.http + "/json")).isSuccess)
    }

    private func run(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    // MARK: Progress and cancellation

    func testProgressIsReportedThrottledAndEndsAtTheTotal() throws {
        let reports = ProgressLog()
        let control = TransferControl(progress: { progress in
            reports.add(progress)
            return true
        })
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/bytes/20000000"), control: control)
        XCTAssertTrue(result.isSuccess)
        let values = reports.values
        XCTAssertFalse(values.isEmpty)
        XCTAssertEqual(values.last?.bytesReceived, 20_000_000)
        XCTAssertEqual(values.map(\.bytesReceived), values.map(\.bytesReceived).sorted())
        XCTAssertLessThan(values.count, 2000, "reports are throttled")
    }

    func testProgressHandlerCanCancel() {
        let control = TransferControl(progress: { $0.bytesReceived < 5 })
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/drip?bytes=100000&delay=0.01"), control: control)
        XCTAssertEqual(result.error?.code, .cancelled)
    }

    func testCancelFromAnotherThreadStopsADownloadPromptlyAndTheConnectionPoolStaysHealthy() throws {
        let cancellation = CancellationHandle()
        let started = DispatchSemaphore(value: 0)
        let once = ProgressLog()
        let control = TransferControl(progress: { progress in
            if progress.bytesReceived > 0, once.values.isEmpty {
                once.add(progress)
                started.signal()
            }
            return true
        }, cancellation: cancellation)
        let destination = directory.appendingPathComponent("cancelled.bin")
        let outcome = ResultBox()
        let thread = Thread { [transport, server] in
            let result = transport.send(request: HTTPRequest(endpoint: server.http + "/drip?bytes=100000&delay=0.01")
                .downloading(to: destination), control: control)
            outcome.finish(result)
        }
        thread.start()
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        let cancelledAt = Date()
        cancellation.cancel()
        let result = try XCTUnwrap(outcome.wait(seconds: 10))
        let latency = Date().timeIntervalSince(cancelledAt)
        XCTAssertEqual(result.error?.code, .cancelled)
        XCTAssertLessThan(latency, 1.0, "cancel took \(latency) s")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        // The same transport goes on working: no broken connection is handed out.
        for _ in 0..<5 {
            XCTAssertTrue(transport.send(request: HTTPRequest(endpoint: server.http + "/json")).isSuccess)
        }
    }

    func testCancelledHandleFailsANewSendAtOnce() {
        let cancellation = CancellationHandle()
        cancellation.cancel()
        let result = transport.send(request: HTTPRequest(endpoint: server.http + "/delay/5"),
                                    control: TransferControl(cancellation: cancellation))
        XCTAssertEqual(result.error?.code, .cancelled)
    }
}

final class ProgressLog: @unchecked Sendable {
    private var items: [TransferProgress] = []
    private let lock = NSLock()
    func add(_ item: TransferProgress) { lock.withLock { items.append(item) } }
    var values: [TransferProgress] { lock.withLock { items } }
}

final class ResultBox: @unchecked Sendable {
    private var result: HTTPTransport.Result?
    private let done = DispatchSemaphore(value: 0)
    func finish(_ result: HTTPTransport.Result) {
        self.result = result
        done.signal()
    }
    func wait(seconds: Double) -> HTTPTransport.Result? {
        done.wait(timeout: .now() + seconds) == .success ? result : nil
    }
}
