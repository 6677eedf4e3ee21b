import Foundation
@testable import HTTPTransport
import XCTest

/// An async send none of whose steps can block runs them on the caller's executor instead of
/// the session's (`SendPipeline.runsWithoutBlocking`): which pipelines qualify, and that such a
/// send answers exactly as one through the session's executor does.
final class AsyncFastPathTests: XCTestCase {
    private struct NoOpRequestInterceptor: HTTPRequestInterceptor {
        func intercept(request: RawRequest) throws -> RawRequest { request }
    }

    private struct NoOpResponseInterceptor: HTTPResponseInterceptor {
        func intercept(response: RawResponse) -> RawResponse { response }
    }

    func testOnlyAPipelineOfNonBlockingStepsQualifies() {
        XCTAssertTrue(HTTPTransport().pipeline.runsWithoutBlocking, "the default transport")
        XCTAssertTrue(HTTPTransport(responseInterceptors: []).pipeline.runsWithoutBlocking)
        XCTAssertFalse(HTTPTransport(requestInterceptors: [NoOpRequestInterceptor()]).pipeline.runsWithoutBlocking)
        XCTAssertFalse(HTTPTransport(responseInterceptors: [NoOpResponseInterceptor(), ClarifyErrorInterceptor()])
            .pipeline.runsWithoutBlocking)
        XCTAssertFalse(HTTPTransport(retrier: RetryPolicy(maxAttempts: 2)).pipeline.runsWithoutBlocking)
        var configuration = Session.Configuration()
        configuration.cache = HTTPCache()
        XCTAssertFalse(HTTPTransport(session: Session(configuration: configuration)).pipeline.runsWithoutBlocking)
        // A request that brings an interceptor of its own gets a pipeline that does not qualify.
        let request = HTTPRequest(endpoint: server.http + "/json").with(interceptors: [NoOpResponseInterceptor()] as [any HTTPResponseInterceptor])
        XCTAssertFalse(SendPipeline.of(request, on: HTTPTransport()).runsWithoutBlocking)
    }

    func testAFastSendAnswersAsASendThroughTheSessionsExecutorDoes() async throws {
        let fast = HTTPTransport()
        let plain = HTTPTransport(responseInterceptors: [NoOpResponseInterceptor(), ClarifyErrorInterceptor()])
        XCTAssertTrue(fast.pipeline.runsWithoutBlocking)
        XCTAssertFalse(plain.pipeline.runsWithoutBlocking)
        let requests = [
            HTTPRequest(endpoint: server.http + "/json"),
            HTTPRequest(endpoint: server.http + "/status/404?code=missing&message=No%20such%20user"),
            HTTPRequest(endpoint: server.http + "/redirect/2"),
            HTTPRequest(endpoint: "http://127.0.0.1:\(TestServer.closedPort())/refused"),
        ]
        for request in requests {
            let answers = [await fast.result(for: request, progress: nil), await plain.result(for: request, progress: nil)]
            let summaries = answers.map { result in
                [result.value.map { "\($0.httpStatus.rawValue) \($0.metrics.redirectCount)" } ?? "-",
                 // (An echo's path, not its connection's number.)
                 ((try? result.value?.getJSONDictionary())?["path"] as? String) ?? result.value?.getString() ?? "-",
                 result.error.map { "\($0.code) \($0.httpStatusCode?.rawValue ?? 0)" } ?? "-",
                 result.error?.responseBodyErrorCode ?? "-", result.error?.responseBodyErrorMessage ?? "-"]
            }
            XCTAssertEqual(summaries[0], summaries[1], request.endpoint)
        }
    }

    func testAFastSendIsCancelledWithItsTask() async {
        let transport = HTTPTransport()
        XCTAssertTrue(transport.pipeline.runsWithoutBlocking)
        let request = HTTPRequest(endpoint: server.http + "/delay/10")
        let task = Task { await transport.result(for: request, progress: nil) }
        let started = ContinuousClock.now
        task.cancel()  // whether before the transfer starts or while it waits: .cancelled
        let result = await task.value
        XCTAssertEqual(result.error?.code, .cancelled)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
    }

    func testAFastSendTimesOutAsASendThroughTheSessionsExecutorDoes() async {
        let fast = HTTPTransport()
        let plain = HTTPTransport(responseInterceptors: [NoOpResponseInterceptor(), ClarifyErrorInterceptor()])
        let request = HTTPRequest(endpoint: server.http + "/delay/3", timeout: 0.3)
        let started = ContinuousClock.now
        let answers = [await fast.result(for: request, progress: nil), await plain.result(for: request, progress: nil)]
        XCTAssertEqual(answers.map { $0.error?.code }, [.timeout, .timeout])
        XCTAssertEqual(answers.map { $0.error?.url }, [request.endpoint, request.endpoint])
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
    }

    /// A fast send cancelled while its transfer runs lets go of the transfer: the session's one
    /// connection to the host and its one place for a transfer are free for the next send at once.
    func testACancelledFastSendFreesItsTransfer() async throws {
        var configuration = Session.Configuration()
        configuration.maxConnectionsPerHost = 1
        configuration.maxConcurrentTransfers = 1
        let transport = HTTPTransport(session: Session(configuration: configuration))
        XCTAssertTrue(transport.pipeline.runsWithoutBlocking)
        let counter = HTTPTransport(session: Session())
        let origin = server.http
        let count = { () async -> Int in
            let response = try? await counter.send(HTTPRequest(endpoint: origin + "/_admin/count"))
            return (try? response?.getJSONDictionary())?["count"] as? Int ?? 0
        }
        _ = try await counter.send(HTTPRequest(endpoint: origin + "/_admin/reset"))
        let slow = Task { await transport.result(for: HTTPRequest(endpoint: origin + "/delay/10"), progress: nil) }
        // Running once the server has it (the counting requests are not counted).
        for _ in 0..<250 where await count() < 1 { try await Task.sleep(for: .milliseconds(20)) }
        slow.cancel()
        let cancelled = await slow.value
        XCTAssertEqual(cancelled.error?.code, .cancelled)
        let started = ContinuousClock.now
        let next = await transport.result(for: HTTPRequest(endpoint: server.http + "/json", timeout: 5), progress: nil)
        XCTAssertNil(next.error, next.error?.message ?? "")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3))
    }

    /// A session on libcurl's transfer loop calls its engine directly (`Session.loopEngine`),
    /// without the `TransferThreads` task value another engine needs: it answers exactly as the
    /// engine called through the protocol with that value set does.
    func testTheDirectEngineCallAnswersAsTheCallThroughTheEngineSeamDoes() async throws {
        let session = Session()
        let loopEngine = try XCTUnwrap(session.loopEngine, "libcurl's engine with a loop is called directly")
        XCTAssertNil(Session(engine: StubEngine { RawResponse(request: $0, statusCode: .ok) }).loopEngine)
        let urls = [server.http + "/json", server.http + "/status/404", server.http + "/redirect/1",
                    "http://127.0.0.1:\(TestServer.closedPort())/refused"]
        for url in urls {
            let request = RawRequest(url: try XCTUnwrap(URL(string: url)))
            let direct = await session.executeAsync(request, control: TransferControl())
            let engine: any HTTPEngine = loopEngine
            let seam = await TransferThreads.$current.withValue(session.asyncThreads) {
                await engine.executeAsync(request, control: TransferControl())
            }
            XCTAssertEqual(summary(of: direct), summary(of: seam), url)
        }
    }

    /// What an engine's answer says: status, redirect target, body size and error code.
    private func summary(of response: RawResponse) -> [String] {
        let status: String = response.statusCode.map { String($0.rawValue) } ?? "-"
        let location: String = response.headers["Location"] ?? "-"
        let body: String = response.data.map { String($0.count) } ?? "-"
        let error: String = response.error.map { "\($0.code)" } ?? "-"
        return [status, location, body, error]
    }
}
