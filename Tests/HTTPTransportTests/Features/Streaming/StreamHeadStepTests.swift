import Foundation
@testable import HTTPTransport
import XCTest

/// A stream's head travels up the send's steps as their answer while its body goes on: a user's
/// step sees it (and may reject it) before the caller, the response interceptors run on it once,
/// a retrier may repeat it into a clean stream, and the stream keeps its place among the
/// session's transfers until its body ended.
final class StreamHeadStepTests: XCTestCase {
    /// Notes every response it passes up; fails the first `rejects` heads (status, no body).
    private struct HeadWatch: HTTPSendStep {
        let seen: Recorder<(status: Int?, headers: Int, hasData: Bool)>
        var rejects = 0
        /// Told when a request goes to the network.
        var forwarding: AsyncStream<Void>.Continuation?

        func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Void, action: HTTPSendAction) {
            forwarding?.yield()
            return ((), .forward(request))
        }

        func resume(_ exchange: inout Void, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
            seen.add((response.statusCode?.rawValue, response.headers.count, response.data != nil))
            guard seen.count <= rejects else { return .answer(response) }
            return .fail(HTTPTransportError(code: .badResponse, message: "HeadWatch rejects head \(seen.count)"))
        }
    }

    /// Repeats a failed attempt once, on `next`.
    private struct OnceMore: HTTPRetrier {
        let next: URL

        func retry(_ context: RetryContext) -> RetryAction {
            guard context.attempt == 1 else { return .doNotRetry }
            var request = context.request
            request.url = next
            return .retry(request: request, delay: 0)
        }
    }

    private func transport(_ step: HeadWatch, maxConcurrentTransfers: Int = 1_000, maxConnectionsPerHost: Int = 0,
                           retrier: (any HTTPRetrier)? = nil,
                           interceptors: [any HTTPResponseInterceptor] = []) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.networkSteps = [step]
        configuration.maxConcurrentTransfers = maxConcurrentTransfers
        configuration.maxConnectionsPerHost = maxConnectionsPerHost
        return HTTPTransport(session: Session(configuration: configuration), responseInterceptors: interceptors, retrier: retrier)
    }

    private func lines(_ stream: HTTPResponseStream) async throws -> [String] {
        var lines: [String] = []
        for try await line in stream.lines { lines.append(line) }
        return lines
    }

    func testAUserStepSeesTheHeadOfAnEndlessStreamBeforeTheCaller() async throws {
        let seen = Recorder<(status: Int?, headers: Int, hasData: Bool)>()
        // (The body never ends: the caller gets the head only because the chain answered with it.)
        let stream = try await transport(HeadWatch(seen: seen)).stream(HTTPRequest(endpoint: server.http + "/endless"))
        defer { stream.cancel() }
        XCTAssertEqual(seen.count, 1, "the step saw the head before stream(_:) returned")
        XCTAssertEqual(seen.values.first?.status, 200)
        XCTAssertEqual(seen.values.first?.hasData, false, "a head, without its body")
        XCTAssertGreaterThan(seen.values.first?.headers ?? 0, 0)
        XCTAssertEqual(stream.httpStatus, .ok)
        var iterator = stream.body.makeAsyncIterator()
        let chunk = try await iterator.next()
        XCTAssertFalse(chunk?.isEmpty ?? true, "the body goes on after the head")
    }

    func testAStepRejectingTheHeadFailsTheCallAndStopsTheTransfer() async throws {
        let seen = Recorder<(status: Int?, headers: Int, hasData: Bool)>()
        // One place: the next send gets it only once the rejected stream's transfer ended.
        let transport = transport(HeadWatch(seen: seen, rejects: 1), maxConcurrentTransfers: 1)
        do {
            _ = try await transport.stream(HTTPRequest(endpoint: server.http + "/endless"))
            XCTFail("a rejected head was handed over")
        } catch {
            XCTAssertEqual(error.code, .badResponse)
            XCTAssertEqual(error.message, "HeadWatch rejects head 1")
        }
        var request = HTTPRequest(endpoint: server.http + "/json")
        request.timeout = 10
        let response = try await transport.send(request)
        XCTAssertEqual(response.httpStatus, .ok, "the endless transfer stopped and gave its place back")
        XCTAssertEqual(transport.session.transferGate.counts.running, 0)
    }

    func testAResponseInterceptorRunsOnceOnAStreamsHeadNotAgainAtItsEnd() async throws {
        let intercepted = Recorder<Bool>()
        let counting = ClosureResponseInterceptor { response in
            intercepted.add(response.data != nil)
            return response
        }
        let seen = Recorder<(status: Int?, headers: Int, hasData: Bool)>()
        let stream = try await transport(HeadWatch(seen: seen), interceptors: [counting])
            .stream(HTTPRequest(endpoint: server.http + "/ndjson?count=3&delay=0.05"))
        XCTAssertEqual(intercepted.values, [false], "once, on the head")
        let read = try await lines(stream)
        XCTAssertEqual(read.count, 3)
        await stream.channel.awaitTransferEnd()
        XCTAssertEqual(intercepted.values, [false], "not again when the body ended")
    }

    func testARetrierRepeatingAStreamedHeadGetsACleanSecondStreamAndTheFirstTransferStops() async throws {
        let seen = Recorder<(status: Int?, headers: Int, hasData: Bool)>()
        let next = try XCTUnwrap(URL(string: server.http + "/ndjson?count=3&delay=0.01"))
        // One connection per host: the repeat gets one only once the abandoned endless transfer let it go.
        let transport = transport(HeadWatch(seen: seen, rejects: 1), maxConnectionsPerHost: 1, retrier: OnceMore(next: next))
        var request = HTTPRequest(endpoint: server.http + "/endless")
        request.timeout = 10
        let stream = try await transport.stream(request)
        XCTAssertEqual(seen.count, 2, "two heads went up the chain")
        XCTAssertEqual(stream.request.url, next)
        let read = try await lines(stream)
        XCTAssertEqual(read, (0..<3).map { #"{"n": \#($0)}"# }, "nothing of the abandoned body reached the reader")
    }

    func testAStreamHoldsItsPlaceUntilItsBodyEndedNotOnlyUntilItsHead() async throws {
        let seen = Recorder<(status: Int?, headers: Int, hasData: Bool)>()
        let transport = transport(HeadWatch(seen: seen), maxConcurrentTransfers: 1)
        // (The body lasts 3 s; the queued send waits 0.3 s at most.)
        let stream = try await transport.stream(HTTPRequest(endpoint: server.http + "/ndjson?count=3&delay=1"))
        XCTAssertEqual(transport.session.transferGate.counts.running, 1, "the head was handed over; the body goes on")
        var queued = HTTPRequest(endpoint: server.http + "/json")
        queued.timeout = 0.3
        do {
            _ = try await transport.send(queued)
            XCTFail("a send got the place of a stream whose body goes on")
        } catch {
            XCTAssertEqual(error.code, .timeout)
        }
        let read = try await lines(stream)
        XCTAssertEqual(read.count, 3)
        await stream.channel.awaitTransferEnd()
        XCTAssertEqual(transport.session.transferGate.counts.running, 0, "the place went back with the body's end")
        queued.timeout = 10
        let response = try await transport.send(queued)
        XCTAssertEqual(response.httpStatus, .ok)
    }

    func testCancellingTheTaskWaitingInTheChainForTheHeadStopsTheTransfer() async throws {
        let (forwarded, forwarding) = AsyncStream<Void>.makeStream()
        let seen = Recorder<(status: Int?, headers: Int, hasData: Bool)>()
        let streaming = transport(HeadWatch(seen: seen, forwarding: forwarding), maxConcurrentTransfers: 1)
        // (/delay/10 sends its head after 10 s: the task waits in the engine step.)
        let slow = HTTPRequest(endpoint: server.http + "/delay/10")
        let waiting = Task { try await streaming.stream(slow) }
        for await _ in forwarded { break }
        waiting.cancel()
        let started = ContinuousClock.now
        do {
            _ = try await waiting.value
            XCTFail("a cancelled stream was handed over")
        } catch {
            XCTAssertEqual((error as? HTTPTransportError)?.code, .cancelled)
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        XCTAssertEqual(seen.count, 1, "the cancelled exchange's answer went up the chain")
        var request = HTTPRequest(endpoint: server.http + "/json")
        request.timeout = 5
        let response = try await streaming.send(request)
        XCTAssertEqual(response.httpStatus, .ok, "the cancelled transfer gave its place back")
    }
}
