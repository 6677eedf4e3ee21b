import Foundation
import HTTPTransport
import XCTest

/// The async bridge: `send(_:)` runs the blocking transfer on the library's own threads,
/// never on the cooperative pool, and task cancellation cancels the transfer.
final class AsyncTests: XCTestCase {
    func testResponseForRequestReturnsTheResponse() async throws {
        let transport = HTTPTransport()
        let response = try await transport.send(HTTPRequest(endpoint: server.http + "/anything/async")
            .with(parameters: ["a": "1"], encoding: .url))
        XCTAssertEqual(response.httpStatus, .ok)
        let echo = try echo(response)
        XCTAssertEqual(echo["path"] as? String, "/anything/async")
        XCTAssertEqual((echo["args"] as? [String: Any])?["a"] as? String, "1")
    }

    func testTryAwaitSendAndTheSynchronousSendBothWorkInAsyncCode() async throws {
        let transport = HTTPTransport()
        let awaited = try await transport.send(HTTPRequest(endpoint: server.http + "/anything/awaited"))
        XCTAssertEqual(try echo(awaited)["path"] as? String, "/anything/awaited")
        let upload = try await transport.send(DataUploadHTTPRequest(endpoint: server.http + "/upload", data: Data("abc".utf8)))
        XCTAssertEqual(try upload.getJSONDictionary()?["size"] as? Int, 3)
        do {
            _ = try await transport.send(HTTPRequest(endpoint: server.http + "/status/409"))
            XCTFail("a 409 must throw")
        } catch {
            XCTAssertEqual(error.httpStatusCode, .conflict)
        }
        // The labelled call is still the synchronous one returning a Result, here too.
        let result: HTTPTransport.Result = transport.send(request: HTTPRequest(endpoint: server.http + "/anything/sync"))
        XCTAssertEqual(try echo(try result.get())["path"] as? String, "/anything/sync")
    }

    func testFailureIsThrownAsHTTPTransportError() async {
        let transport = HTTPTransport()
        do {
            _ = try await transport.send(HTTPRequest(endpoint: server.http + "/status/404"))
            XCTFail("a 404 must throw")
        } catch {
            // Typed throws: `error` is an HTTPTransportError.
            XCTAssertEqual(error.code, .httpStatus)
            XCTAssertEqual(error.httpStatusCode, .notFound)
        }
        do {
            _ = try await transport.send(HTTPRequest(endpoint: "http://127.0.0.1:\(TestServer.closedPort())/"))
            XCTFail("a refused connection must throw")
        } catch {
            XCTAssertEqual(error.code, .cannotConnect)
        }
    }

    func testUploadsAndResultForm() async throws {
        let transport = HTTPTransport()
        let data = try await transport.send(DataUploadHTTPRequest(endpoint: server.http + "/upload", data: Data("hello".utf8)))
        XCTAssertEqual(try data.getJSONDictionary()?["size"] as? Int, 5)

        let file = FileUploadHTTPRequest(endpoint: server.http + "/post", fileMultipart: FileMultipart(
            data: Data("file body".utf8), partName: "file", fileName: "a.txt", mimeType: "text/plain"))
        let multipart = try await transport.send(file)
        let parts = try echo(multipart)["multipart"] as? [[String: Any]]
        XCTAssertEqual(parts?.first?["text"] as? String, "file body")

        do {
            _ = try await transport.send(HTTPRequest(endpoint: server.http + "/status/500"))
            XCTFail("a 500 is a failure")
        } catch {
            XCTAssertEqual(error.httpStatusCode, .internalServerError)
        }
    }

    func testManyConcurrentSendsEachGetTheirOwnResponse() async throws {
        let transport = HTTPTransport()
        let base = server.http
        let count = 64
        let tokens = try await withThrowingTaskGroup(of: (String, String?).self) { group in
            for index in 0..<count {
                group.addTask {
                    let token = "async-\(index)"
                    let response = try await transport.send(HTTPRequest(endpoint: base + "/anything/\(token)")
                        .with(header: "X-Token", value: token))
                    let echo = try JSONSerialization.jsonObject(with: response.body ?? Data()) as? [String: Any]
                    return (token, (echo?["headers_dict"] as? [String: String])?["x-token"])
                }
            }
            var pairs: [(String, String?)] = []
            for try await pair in group { pairs.append(pair) }
            return pairs
        }
        XCTAssertEqual(tokens.count, count)
        for (sent, echoed) in tokens { XCTAssertEqual(sent, echoed) }
    }

    /// Blocking transfers must not occupy the cooperative pool (as wide as the machine has cores):
    /// with more slow sends in flight than there are cores, other tasks still run at once.
    func testSlowSendsDoNotBlockTheCooperativePool() async throws {
        let transport = HTTPTransport()
        let base = server.http
        let slow = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<slow {
                group.addTask { _ = try await transport.send(HTTPRequest(endpoint: base + "/delay/1")) }
            }
            // Let the slow sends start, then time a trivial piece of work on the cooperative pool.
            try await Task.sleep(for: .milliseconds(200))
            let probeStart = ContinuousClock.now
            let value = await Task.detached { 40 + 2 }.value
            let probe = ContinuousClock.now - probeStart
            XCTAssertEqual(value, 42)
            XCTAssertLessThan(probe, .milliseconds(300), "a task waited for a blocked cooperative thread")
            try await group.waitForAll()
        }
        // They ran side by side, not one core's worth at a time.
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3))
    }

    func testCancellingTheTaskCancelsTheTransferPromptly() async throws {
        let transport = HTTPTransport()
        let url = server.http + "/delay/5"
        let task = Task { () -> (Result<HTTPResponse, HTTPTransportError>, Duration) in
            let start = ContinuousClock.now
            do throws(HTTPTransportError) {
                let response = try await transport.send(HTTPRequest(endpoint: url))
                return (.success(response), ContinuousClock.now - start)
            } catch {
                return (.failure(error), ContinuousClock.now - start)
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        let cancelledAt = ContinuousClock.now
        task.cancel()
        let (result, _) = await task.value
        let latency = ContinuousClock.now - cancelledAt
        guard case .failure(let error) = result else { return XCTFail("a cancelled send must throw") }
        XCTAssertEqual(error.code, .cancelled)
        XCTAssertLessThan(latency, .seconds(2), "cancellation took \(latency)")
        print("AsyncTests: cancel → throw latency \(latency)")
    }

    func testAnAlreadyCancelledTaskSendsNothing() async throws {
        let transport = HTTPTransport()
        let key = "async-cancelled-\(UUID().uuidString)"
        let url = server.http + "/flaky?key=\(key)&fail=0"
        let task = Task { () -> HTTPTransportError? in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(HTTPTransportError) {
                _ = try await transport.send(HTTPRequest(endpoint: url))
                return nil
            } catch {
                return error
            }
        }
        let error = await task.value
        XCTAssertEqual(error?.code, .cancelled)
        let count = try await transport.send(HTTPRequest(endpoint: server.http + "/flaky/count?key=\(key)"))
        XCTAssertEqual(try count.getJSONDictionary()?["count"] as? Int, 0, "nothing reached the server")
    }

    func testProgressIsReportedOnTheTransferThread() async throws {
        let transport = HTTPTransport()
        let reports = Recorder<String>()
        let response = try await transport.send(HTTPRequest(endpoint: server.http + "/bytes/200000"), progress: { progress in
            reports.add("\(progress.bytesReceived)")
            return true
        })
        XCTAssertEqual(response.body?.count, 200_000)
        XCTAssertEqual(reports.values.last, "200000")
    }
}
