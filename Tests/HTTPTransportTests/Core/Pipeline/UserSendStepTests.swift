import Foundation
import HTTPTransport
import XCTest

/// Steps a user adds (`Session.Configuration.networkSteps`, `HTTPSendStep`), against the test
/// server, each through a blocking and an async send: one that answers by itself, one that
/// changes the request, one that forwards twice, one that waits; and steps that misbehave.
final class UserSendStepTests: XCTestCase {
    /// Answers requests to /answered-here itself (the server has no such route: a 404).
    private struct AnsweringStep: HTTPSendStep {
        func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Void, action: HTTPSendAction) {
            guard request.url.path == "/answered-here" else { return ((), .forward(request)) }
            return ((), .answer(RawResponse(request: request, statusCode: .ok, data: Data("from the step".utf8))))
        }

        func resume(_ exchange: inout Void, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
            .answer(response)
        }
    }

    /// Adds a header, and one to what comes back.
    private struct StampingStep: HTTPSendStep {
        func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Void, action: HTTPSendAction) {
            var request = request
            request.headers["X-Stamped-By"] = "StampingStep"
            return ((), .forward(request))
        }

        func resume(_ exchange: inout Void, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
            var response = response
            response.headers["X-Seen-By"] = "StampingStep"
            return .answer(response)
        }
    }

    /// Sends a request that failed with a 5xx once more (counting its forwards).
    private struct SecondChanceStep: HTTPSendStep {
        func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: (request: RawRequest, forwards: Int), action: HTTPSendAction) {
            ((request, 1), .forward(request))
        }

        func resume(_ exchange: inout (request: RawRequest, forwards: Int), with response: RawResponse,
                    context: HTTPSendContext) -> HTTPSendAction {
            guard exchange.forwards == 1, let status = response.statusCode?.rawValue, status >= 500 else {
                var response = response
                response.headers["X-Forwards"] = String(exchange.forwards)
                return .answer(response)
            }
            exchange.forwards += 1
            return .forward(exchange.request)
        }
    }

    /// Waits `seconds` before it forwards; a cancelled wait fails the send.
    private struct PatientStep: HTTPSendStep {
        let seconds: Double
        /// Counts the sends that reached the step.
        var started = Protected(0)

        func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: RawRequest, action: HTTPSendAction) {
            started.withLock { $0 += 1 }
            return (request, .wait(until: .now + .milliseconds(Int(seconds * 1000))))
        }

        func resume(_ request: inout RawRequest, afterWaiting completed: Bool, context: HTTPSendContext) -> HTTPSendAction {
            guard completed, !context.isCancelled else {
                return .fail(HTTPTransportError(code: .cancelled, message: "cancelled while PatientStep waited"))
            }
            return .forward(request)
        }

        func resume(_ request: inout RawRequest, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
            .answer(response)
        }
    }

    /// Never answers: waits no time, again and again.
    private struct RestlessStep: HTTPSendStep {
        func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Void, action: HTTPSendAction) {
            ((), .wait(until: .now))
        }

        func resume(_ exchange: inout Void, afterWaiting completed: Bool, context: HTTPSendContext) -> HTTPSendAction {
            .wait(until: .now)
        }

        func resume(_ exchange: inout Void, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
            .answer(response)
        }
    }

    /// Asks to wait without saying what to do after.
    private struct ForgetfulStep: HTTPSendStep {
        func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Void, action: HTTPSendAction) {
            ((), .wait(until: .now))
        }

        func resume(_ exchange: inout Void, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
            .answer(response)
        }
    }

    private func transport(_ steps: [any HTTPSendStep]) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.networkSteps = steps
        return HTTPTransport(session: Session(configuration: configuration))
    }

    /// The request sent once blocking, once async (`second`: the async one's, when it differs).
    private func bothWays(_ transport: HTTPTransport, _ request: HTTPRequest, second: HTTPRequest? = nil) async -> [HTTPTransport.Result] {
        let blocking = transport.send(request: request)
        do {
            return [blocking, .success(response: try await transport.send(second ?? request))]
        } catch {
            return [blocking, .failure(error: error)]
        }
    }

    func testAStepAnswersByItselfWithoutTheNetwork() async throws {
        for result in await bothWays(transport([AnsweringStep()]), HTTPRequest(endpoint: server.http + "/answered-here")) {
            let response = try XCTUnwrap(result.value, "\(String(describing: result.error))")
            XCTAssertEqual(response.httpStatus.rawValue, 200)
            XCTAssertEqual(response.getString(), "from the step")
        }
        // Without the step, the server says it has no such route.
        XCTAssertEqual(HTTPTransport().send(request: HTTPRequest(endpoint: server.http + "/answered-here")).error?.httpStatusCode?.rawValue, 404)
    }

    func testAStepChangesTheRequestAndTheResponse() async throws {
        for result in await bothWays(transport([StampingStep()]), HTTPRequest(endpoint: server.http + "/anything")) {
            let response = try XCTUnwrap(result.value, "\(String(describing: result.error))")
            let headers = try XCTUnwrap(try echo(response)["headers_dict"] as? [String: Any])
            XCTAssertEqual(headers["x-stamped-by"] as? String, "StampingStep", "\(headers)")
            XCTAssertEqual(response.headers["X-Seen-By"], "StampingStep")
        }
    }

    func testAStepForwardsTwiceAndTheServerSeesBoth() async throws {
        let transport = transport([SecondChanceStep()])
        let once = { HTTPRequest(endpoint: self.server.http + "/flaky?key=\(UUID().uuidString)&fail=1") }
        for result in await bothWays(transport, once(), second: once()) {
            let response = try XCTUnwrap(result.value, "\(String(describing: result.error))")
            XCTAssertEqual(response.headers["X-Forwards"], "2")
        }
        // A request that keeps failing is forwarded twice, no more.
        let key = UUID().uuidString
        for result in await bothWays(transport, HTTPRequest(endpoint: server.http + "/flaky?key=\(key)&fail=9")) {
            XCTAssertEqual(result.error?.httpStatusCode?.rawValue, 503)
        }
        let count = try sendOK(HTTPTransport(), HTTPRequest(endpoint: server.http + "/flaky/count?key=\(key)"))
        XCTAssertEqual(try echo(count)["count"] as? Int, 4)
    }

    func testAStepWaitsBeforeItForwards() async throws {
        let started = ContinuousClock.now
        let results = await bothWays(transport([PatientStep(seconds: 0.1)]), HTTPRequest(endpoint: server.http + "/get"))
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(200))
        for result in results {
            XCTAssertEqual(result.value?.httpStatus.rawValue, 200, "\(String(describing: result.error))")
        }
    }

    func testACancelledWaitEndsTheSendPromptly() async throws {
        let step = PatientStep(seconds: 30)
        let transport = transport([step])
        let request = HTTPRequest(endpoint: server.http + "/get")
        let started = ContinuousClock.now
        let task = Task { try await transport.send(request) }
        let cancellation = CancellationHandle()
        let blocking = Thread.detachNewThreadWithResult { transport.send(request: request, control: TransferControl(cancellation: cancellation)) }
        // (Both sends reached the step: each waits or is about to; a cancel before its wait began
        // must end it as promptly.)
        while step.started.value < 2, ContinuousClock.now - started < .seconds(10) { try await Task.sleep(for: .milliseconds(2)) }
        XCTAssertEqual(step.started.value, 2, "a send never reached the step")
        task.cancel()
        cancellation.cancel()
        do {
            _ = try await task.value
            XCTFail("the async send was not cancelled")
        } catch {
            XCTAssertEqual((error as? HTTPTransportError)?.code, .cancelled)
        }
        XCTAssertEqual(blocking.wait()?.error?.code, .cancelled)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10))
    }

    func testAStepThatNeverAnswersEndsItsSendWithAClearError() async throws {
        for result in await bothWays(transport([RestlessStep()]), HTTPRequest(endpoint: server.http + "/get")) {
            let error = try XCTUnwrap(result.error)
            XCTAssertEqual(error.code, .interceptorFailed)
            XCTAssertTrue(error.message.contains("RestlessStep"), error.message)
            XCTAssertTrue(error.message.contains("without answering"), error.message)
        }
    }

    func testAStepThatWaitsWithoutResumingAfterwardsFailsClearly() async throws {
        for result in await bothWays(transport([ForgetfulStep()]), HTTPRequest(endpoint: server.http + "/get")) {
            let error = try XCTUnwrap(result.error)
            XCTAssertEqual(error.code, .interceptorFailed)
            XCTAssertTrue(error.message.contains("ForgetfulStep"), error.message)
            XCTAssertTrue(error.message.contains("resume(_:afterWaiting:context:)"), error.message)
        }
    }

    func testUserStepsSeeEveryRedirectHopBelowTheHops() async throws {
        let recorder = PathRecorder()
        let transport = transport([recorder])
        for result in await bothWays(transport, HTTPRequest(endpoint: server.http + "/redirect/2")) {
            XCTAssertEqual(result.value?.httpStatus.rawValue, 200, "\(String(describing: result.error))")
        }
        XCTAssertEqual(recorder.paths, Array(repeating: ["/redirect/2", "/redirect/1", "/redirect/0"], count: 2).flatMap { $0 })
    }

    /// Records the path of every request it forwards.
    private final class PathRecorder: HTTPSendStep, @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [String] = []

        var paths: [String] { lock.withLock { recorded } }

        func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Void, action: HTTPSendAction) {
            lock.withLock { recorded.append(request.url.path) }
            return ((), .forward(request))
        }

        func resume(_ exchange: inout Void, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
            .answer(response)
        }
    }
}

private extension Thread {
    /// Runs `body` on a new thread; `wait()` returns its result.
    static func detachNewThreadWithResult<Value: Sendable>(_ body: @escaping @Sendable () -> Value) -> ThreadResult<Value> {
        let result = ThreadResult<Value>()
        Thread.detachNewThread { result.set(body()) }
        return result
    }
}

/// A value a thread hands over once, waited for with a semaphore.
private final class ThreadResult<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var value: Value?

    func set(_ value: Value) {
        lock.withLock { self.value = value }
        done.signal()
    }

    /// The value, or nil when none came within 20 s.
    func wait() -> Value? {
        guard done.wait(timeout: .now() + 20) == .success else { return nil }
        return lock.withLock { value }
    }
}
