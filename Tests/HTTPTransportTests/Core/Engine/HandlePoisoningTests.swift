import Foundation
@testable import HTTPTransport
import XCTest

/// A failed name lookup must not break the session's pooled handles (issue 12.2): libcurl keeps
/// state from such a transfer that makes a later full set-up of that handle fail. After one
/// (directly, or at the end of a redirect), every kind of send still works on the same transport.
final class HandlePoisoningTests: XCTestCase {
    /// A 70-character DNS label: glibc refuses the name before any packet leaves the machine.
    static let unresolvable = "http://" + String(repeating: "a", count: 70) + ".invalid/"

    private func failLookupDirectly(_ transport: HTTPTransport) {
        let result = transport.send(request: HTTPRequest(endpoint: Self.unresolvable))
        XCTAssertEqual(result.error?.code, .nameResolution, "\(String(describing: result.error))")
    }

    private func failLookupAfterARedirect(_ transport: HTTPTransport) {
        let result = transport.send(request: HTTPRequest(endpoint: redirect(from: server.http, to: Self.unresolvable)))
        XCTAssertEqual(result.error?.code, .nameResolution, "\(String(describing: result.error))")
    }

    /// A transport trusting the test CA, with a warm pooled handle.
    private func warmTransport() throws -> HTTPTransport {
        let transport = HTTPTransport(security: trustingTestCA())
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything/warm"))
        return transport
    }

    func testEveryKindOfSendWorksAfterANameResolutionFailure() throws {
        let transport = try warmTransport()
        failLookupDirectly(transport)
        try assertEveryKindOfSendWorks(on: transport)
    }

    func testEveryKindOfSendWorksAfterARedirectToAnUnresolvableHost() throws {
        let transport = try warmTransport()
        failLookupAfterARedirect(transport)
        try assertEveryKindOfSendWorks(on: transport)
    }

    func testTheHandleOfAFailedLookupIsNotPooled() throws {
        let transport = try warmTransport()
        let engine = try XCTUnwrap(transport.session.engine as? CurlEngine)
        XCTAssertEqual(engine.idleHandleCount, 1)
        failLookupDirectly(transport)
        XCTAssertEqual(engine.idleHandleCount, 0, "the handle that failed went back to the pool")
        _ = try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything"))
        XCTAssertEqual(engine.idleHandleCount, 1)
        failLookupAfterARedirect(transport)
        XCTAssertEqual(engine.idleHandleCount, 0, "the handle of the failed hop went back to the pool")
    }

    func testFiftyAsyncSendsAfterARedirectToAnUnresolvableHostAllSucceed() async throws {
        let transport = try warmTransport()
        failLookupAfterARedirect(transport)
        let url = server.http + "/anything/async"
        let failures = await withTaskGroup(of: String?.self) { group in
            for index in 0..<50 {
                group.addTask {
                    do {
                        _ = try await transport.send(HTTPRequest(endpoint: url + "?n=\(index)"))
                        return nil
                    } catch {
                        return "\(index): \(error)"
                    }
                }
            }
            var failures: [String] = []
            for await failure in group { if let failure { failures.append(failure) } }
            return failures
        }
        XCTAssertEqual(failures, [])
    }

    func testAWorkerPoolWithOneBadURLHasNoCollateralFailures() throws {
        // Four threads take 200 jobs from one queue; job 37 is a webhook URL that cannot resolve.
        let transport = try warmTransport()
        let jobs = (0..<200).map { $0 == 37 ? Self.unresolvable : server.http + "/anything/job?n=\($0)" }
        let next = Protected(0)
        let outcomes = Protected<[Int: String]>([:])  // "ok", or the failure
        let done = DispatchGroup()
        for _ in 0..<4 {
            done.enter()
            Thread {
                while true {
                    let index = next.withLock { value -> Int in
                        defer { value += 1 }
                        return value
                    }
                    guard index < jobs.count else { break }
                    let error = transport.send(request: HTTPRequest(endpoint: jobs[index])).error
                    outcomes.withLock { $0[index] = error.map { "\($0.code)" } ?? "ok" }
                }
                done.leave()
            }.start()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success)
        let failed = outcomes.value.filter { $0.value != "ok" }
        XCTAssertEqual(outcomes.value.count, 200)
        XCTAssertEqual(failed.count, 1, "collateral failures: \(failed.sorted { $0.key < $1.key })")
        XCTAssertEqual(failed[37], "nameResolution")
    }

    // MARK: Every kind of send

    /// GET, small JSON POST, large in-memory POST, file upload, multipart, download to a file,
    /// with a cancellation handle, with progress, and over TLS: each on `transport`.
    private func assertEveryKindOfSendWorks(on transport: HTTPTransport, file: StaticString = #filePath,
                                            line: UInt = #line) throws {
        let directory = try temporaryDirectory("hop")
        let get = try echo(try sendOK(transport, HTTPRequest(endpoint: server.http + "/anything/get"), file: file, line: line))
        XCTAssertEqual(get["path"] as? String, "/anything/get", file: file, line: line)

        let json = try echo(try sendOK(transport, HTTPRequest(httpMethod: .post, endpoint: server.http + "/anything/json")
            .with(parameters: ["a": 1], encoding: .json), file: file, line: line))
        XCTAssertEqual((json["json"] as? [String: Any])?["a"] as? Int, 1, file: file, line: line)

        let large = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let upload = try sendOK(transport, DataUploadHTTPRequest(endpoint: server.http + "/upload", data: large), file: file, line: line)
        XCTAssertEqual(try upload.getJSONDictionary()?["size"] as? Int, large.count, file: file, line: line)

        let bodyFile = directory.appendingPathComponent("body.bin")
        try large.write(to: bodyFile)
        let put = try sendOK(transport, HTTPRequest(httpMethod: .put, endpoint: server.http + "/upload").uploading(file: bodyFile),
                             file: file, line: line)
        XCTAssertEqual(try put.getJSONDictionary()?["size"] as? Int, large.count, file: file, line: line)

        let multipart = FileUploadHTTPRequest(endpoint: server.http + "/upload", fileMultipart: FileMultipart(
            fileURL: bodyFile, partName: "file", fileName: "body.bin", mimeType: "application/octet-stream"))
        let parts = try sendOK(transport, multipart, file: file, line: line).getJSONDictionary()?["multipart"] as? [[String: Any]]
        XCTAssertEqual(parts?.first?["size"] as? Int, large.count, file: file, line: line)

        let destination = directory.appendingPathComponent("download.bin")
        let download = try sendOK(transport, HTTPRequest(endpoint: server.http + "/bytes/70000").downloading(to: destination),
                                  file: file, line: line)
        XCTAssertEqual(download.fileURL, destination, file: file, line: line)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(70_000), file: file, line: line)

        let cancellable = transport.send(request: HTTPRequest(endpoint: server.http + "/bytes/300"),
                                         control: TransferControl(cancellation: CancellationHandle()))
        XCTAssertEqual(cancellable.value?.body?.count, 300, "\(String(describing: cancellable.error))", file: file, line: line)

        let reports = Recorder<TransferProgress>()
        let withProgress = transport.send(request: HTTPRequest(endpoint: server.http + "/bytes/400"),
                                          control: TransferControl(progress: { reports.add($0); return true }))
        XCTAssertEqual(withProgress.value?.body?.count, 400, "\(String(describing: withProgress.error))", file: file, line: line)
        XCTAssertEqual(reports.values.last?.bytesReceived, 400, file: file, line: line)

        let tls = try echo(try sendOK(transport, HTTPRequest(endpoint: server.https() + "/anything/tls"), file: file, line: line))
        XCTAssertEqual(tls["listener"] as? String, "https", file: file, line: line)
    }
}
