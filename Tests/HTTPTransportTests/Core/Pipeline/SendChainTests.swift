import Foundation
import HTTPTransport
import XCTest

/// What the two interpreters of the steps (`SendChain`) carry out for a step, against the test
/// server: a step that fails a request it forwarded leaves it sent (a retrier is told what went
/// out), and a blocking send cancelled while a step waits ends at once, not after the wait.
final class SendChainTests: XCTestCase {
    /// Forwards the request stamped, then fails whatever came back (a step that rejects a response).
    private struct RejectingStep: HTTPSendStep {
        func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Void, action: HTTPSendAction) {
            var stamped = request
            stamped.headers["X-Rejecting-Step"] = "forwarded"
            return ((), .forward(stamped))
        }

        func resume(_ exchange: inout Void, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
            .fail(HTTPTransportError(code: .badResponse, message: "RejectingStep rejects status \(response.statusCode?.rawValue ?? 0)"))
        }
    }

    /// Fails every request before it goes anywhere.
    private struct RefusingStep: HTTPSendStep {
        func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Void, action: HTTPSendAction) {
            ((), .fail(HTTPTransportError(code: .badResponse, message: "RefusingStep refuses")))
        }

        func resume(_ exchange: inout Void, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
            .answer(response)
        }
    }

    /// Waits 30 s before it forwards, saying when it asked to wait; a cut-short wait fails.
    private struct LongWaitStep: HTTPSendStep {
        let waiting: DispatchSemaphore

        func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: RawRequest, action: HTTPSendAction) {
            waiting.signal()
            return (request, .wait(until: .now + .seconds(30)))
        }

        func resume(_ request: inout RawRequest, afterWaiting completed: Bool, context: HTTPSendContext) -> HTTPSendAction {
            guard completed else { return .fail(HTTPTransportError(code: .cancelled, message: "LongWaitStep's wait was cut short")) }
            return .forward(request)
        }

        func resume(_ request: inout RawRequest, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
            .answer(response)
        }
    }

    /// Records what each failed attempt sent, and retries none.
    private final class SentRecorder: HTTPRetrier, @unchecked Sendable {
        private let lock = NSLock()
        private var sent: [RawRequest?] = []

        func retry(_ context: RetryContext) -> RetryAction {
            lock.withLock { sent.append(context.sentRequest) }
            return .doNotRetry
        }

        var attempts: [RawRequest?] { lock.withLock { sent } }
    }

    private func transport(_ step: some HTTPSendStep, retrier: (any HTTPRetrier)? = nil) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.networkSteps = [step]
        return HTTPTransport(session: Session(configuration: configuration), retrier: retrier)
    }

    private func asyncError(_ transport: HTTPTransport, _ request: HTTPRequest) async -> HTTPTransportError? {
        do {
            _ = try await transport.send(request)
            return nil
        } catch {
            return error
        }
    }

    func testAStepThatFailsAForwardedRequestLeavesItSent() async throws {
        for blocking in [true, false] {
            let recorder = SentRecorder()
            let transport = transport(RejectingStep(), retrier: recorder)
            let request = HTTPRequest(endpoint: server.http + "/get")
            let error = blocking ? transport.send(request: request).error : await asyncError(transport, request)
            XCTAssertEqual(error?.code, .badResponse, "blocking: \(blocking)")
            XCTAssertTrue(error?.message.contains("RejectingStep rejects status 200") == true, "\(String(describing: error))")
            XCTAssertEqual(recorder.attempts.count, 1, "blocking: \(blocking)")
            // The request reached the server: the retrier is told what went out, the step's stamp included.
            let sent = try XCTUnwrap(recorder.attempts.first ?? nil, "blocking: \(blocking): the forwarded request counted as unsent")
            XCTAssertEqual(sent.headers["X-Rejecting-Step"], "forwarded")
            XCTAssertEqual(sent.url.path, "/get")
        }
    }

    func testAStepThatFailsARequestItNeverForwardedLeavesItUnsent() async throws {
        let recorder = SentRecorder()
        let transport = transport(RefusingStep(), retrier: recorder)
        XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: server.http + "/get")).error?.code, .badResponse)
        do {
            _ = try await transport.send(HTTPRequest(endpoint: server.http + "/get"))
            XCTFail("the step refuses every request")
        } catch {
            XCTAssertEqual(error.code, .badResponse)
        }
        XCTAssertEqual(recorder.attempts.count, 2)
        XCTAssertTrue(recorder.attempts.allSatisfy { $0 == nil }, "nothing was sent")
    }

    func testABlockingSendCancelledWhileAStepWaitsEndsPromptly() throws {
        let waiting = DispatchSemaphore(value: 0)
        let transport = transport(LongWaitStep(waiting: waiting))
        let cancellation = CancellationHandle()
        let done = DispatchSemaphore(value: 0)
        let result = Protected<HTTPTransport.Result?>(nil)
        let request = HTTPRequest(endpoint: server.http + "/get")
        Thread.detachNewThread {
            result.value = transport.send(request: request,
                                          control: TransferControl(cancellation: cancellation))
            done.signal()
        }
        XCTAssertEqual(waiting.wait(timeout: .now() + 10), .success, "the step never asked to wait")
        let cancelled = ContinuousClock.now
        cancellation.cancel()
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "the send waited on after it was cancelled")
        XCTAssertEqual(result.value?.error?.code, .cancelled, "\(String(describing: result.value?.error))")
        XCTAssertLessThan(ContinuousClock.now - cancelled, .seconds(3))
    }

    func testABlockingSendWhoseHandleIsCancelledBeforeTheStepWaitsDoesNotWait() throws {
        let waiting = DispatchSemaphore(value: 0)
        let cancellation = CancellationHandle()
        cancellation.cancel()
        let started = ContinuousClock.now
        let result = transport(LongWaitStep(waiting: waiting))
            .send(request: HTTPRequest(endpoint: server.http + "/get"), control: TransferControl(cancellation: cancellation))
        XCTAssertEqual(result.error?.code, .cancelled, "\(String(describing: result.error))")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
    }
}
