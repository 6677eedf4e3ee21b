import Foundation
import HTTPTransport
import XCTest

/// A retry back-off wakes up when the send is cancelled (issue 13.12): the send ends promptly
/// with `.cancelled` instead of sleeping out a 30 s delay. The cancel comes once the policy has
/// chosen its delay (its `onRetry` hook), i.e. while the send waits to retry; the server counts
/// the attempts that reached it.
final class RetryCancellationTests: XCTestCase {
    /// How a send cancelled during its back-off ended.
    private struct CancelledSend {
        var error: HTTPTransportError?
        /// From the cancel to the send's end.
        var latency: Duration
        /// Attempts the server saw.
        var attempts: Int
    }

    /// A policy waiting 30 s before its one retry, signalling `waiting` when it starts to wait.
    private func slowPolicy(signalling waiting: DispatchSemaphore) -> RetryPolicy {
        RetryPolicy(maxAttempts: 2, baseDelay: 30, maxDelay: 60, maxTotalTime: 120, honorsRetryAfter: false,
                    jitter: { $0.upperBound }, onRetry: { _, _ in waiting.signal() })
    }

    /// A URL that answers 503 every time, and its key for the server's attempt count.
    private func alwaysFailing() throws -> (url: String, key: String) {
        let key = UUID().uuidString
        _ = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/flaky/reset?key=\(key)"))
        return (server.http + "/flaky?key=\(key)&fail=100&status=503", key)
    }

    private func attempts(key: String) throws -> Int {
        let response = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/flaky/count?key=\(key)"))
        return try XCTUnwrap(try response.getJSONDictionary()?["count"] as? Int)
    }

    /// A send through `CancellationHandle`, cancelled from this thread during its back-off.
    private func cancelThroughHandle() throws -> CancelledSend {
        let (url, key) = try alwaysFailing()
        let waiting = DispatchSemaphore(value: 0)
        let transport = HTTPTransport(retrier: slowPolicy(signalling: waiting))
        let cancellation = CancellationHandle()
        let outcome = Protected<(HTTPTransport.Result, ContinuousClock.Instant)?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread {
            let result = transport.send(request: HTTPRequest(endpoint: url), control: TransferControl(cancellation: cancellation))
            outcome.value = (result, .now)
            finished.signal()
        }.start()
        XCTAssertEqual(waiting.wait(timeout: .now() + 20), .success, "the first attempt never failed")
        let cancelled = ContinuousClock.now
        cancellation.cancel()
        XCTAssertEqual(finished.wait(timeout: .now() + 40), .success)
        let (result, ended) = try XCTUnwrap(outcome.value)
        return CancelledSend(error: result.error, latency: ended - cancelled, attempts: try attempts(key: key))
    }

    /// An async send whose task is cancelled during its back-off.
    private func cancelTheTask() async throws -> CancelledSend {
        let (url, key) = try alwaysFailing()
        let waiting = DispatchSemaphore(value: 0)
        let transport = HTTPTransport(retrier: slowPolicy(signalling: waiting))
        let task = Task { () -> (HTTPTransportError?, ContinuousClock.Instant) in
            do throws(HTTPTransportError) {
                _ = try await transport.send(HTTPRequest(endpoint: url))
                return (nil, .now)
            } catch {
                return (error, .now)
            }
        }
        let started = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: waiting.wait(timeout: .now() + 20)) }
        }
        XCTAssertEqual(started, .success, "the first attempt never failed")
        let cancelled = ContinuousClock.now
        task.cancel()
        let (error, ended) = await task.value
        return CancelledSend(error: error, latency: ended - cancelled, attempts: try attempts(key: key))
    }

    func testCancellingDuringTheBackOffEndsTheSendAtOnce() throws {
        let send = try cancelThroughHandle()
        XCTAssertLessThan(send.latency, .seconds(1), "the back-off did not wake up")
        XCTAssertEqual(send.attempts, 1, "no retry after the cancel")
    }

    func testASendCancelledDuringTheBackOffFailsWithCancelled() throws {
        let send = try cancelThroughHandle()
        XCTAssertEqual(send.error?.code, .cancelled, "\(String(describing: send.error))")
        XCTAssertEqual((send.error?.underlyingError as? HTTPTransportError)?.httpStatusCode, .serviceUnavailable,
                       "the last attempt's failure rides along")
    }

    func testCancellingTheTaskDuringTheBackOffEndsTheSendAtOnce() async throws {
        let send = try await cancelTheTask()
        XCTAssertLessThan(send.latency, .seconds(1), "the back-off did not wake up")
        XCTAssertEqual(send.attempts, 1, "no retry after the cancel")
    }

    func testATaskCancelledDuringTheBackOffThrowsCancelled() async throws {
        let send = try await cancelTheTask()
        XCTAssertEqual(send.error?.code, .cancelled, "\(String(describing: send.error))")
    }
}
