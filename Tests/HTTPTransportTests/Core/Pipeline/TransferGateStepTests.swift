import Foundation
@testable import HTTPTransport
import XCTest

/// `TransferGateStep`, the session's `maxConcurrentTransfers` as the first step of the list:
/// async sends and fan-out requests take a place there, a blocking send starts below it, a
/// waiter that is cancelled or runs out of time leaves without one, and a place is given back
/// however the send ends.
final class TransferGateStepTests: XCTestCase {
    private func transport(limit: Int) -> HTTPTransport {
        var configuration = Session.Configuration()
        configuration.maxConcurrentTransfers = limit
        let engine = StubEngine { RawResponse(request: $0, statusCode: .ok, data: Data("ok".utf8)) }
        return HTTPTransport(session: Session(configuration: configuration, engine: engine))
    }

    func testTheGateIsTheFirstStepAndABlockingSendStartsBelowIt() {
        let pipeline = transport(limit: 1).pipeline
        XCTAssertTrue(pipeline.steps.first is TransferGateStep)
        XCTAssertEqual(pipeline.blockingStart, 1)
        XCTAssertTrue(pipeline.runsWithoutBlocking, "the gate's step suspends, it never blocks")
    }

    func testABlockingSendDoesNotWaitForAPlace() async {
        let transport = transport(limit: 1)
        _ = await transport.session.transferGate.enter()  // every place taken
        defer { transport.session.transferGate.leave() }
        let result = transport.send(request: HTTPRequest(endpoint: "http://127.0.0.1:9/blocking"))
        XCTAssertNil(result.error)
        XCTAssertEqual(transport.session.transferGate.counts.running, 1)
    }

    func testAnAsyncSendGivesItsPlaceBackOnSuccessAndOnFailure() async throws {
        let transport = transport(limit: 1)
        _ = try await transport.send(HTTPRequest(endpoint: "http://127.0.0.1:9/ok"))
        XCTAssertEqual(transport.session.transferGate.counts.running, 0)
        do {
            _ = try await transport.send(HTTPRequest(endpoint: "not a url"))
            XCTFail("an invalid endpoint must fail")
        } catch {
            XCTAssertEqual(error.code, .invalidURL)
        }
        XCTAssertEqual(transport.session.transferGate.counts.running, 0)
    }

    func testAQueuedSendFailsWithTimeoutAtItsDeadlineWithoutAPlace() async {
        let transport = transport(limit: 1)
        _ = await transport.session.transferGate.enter()
        defer { transport.session.transferGate.leave() }
        var request = HTTPRequest(endpoint: "http://127.0.0.1:9/queued")
        request.timeout = 0.05
        do {
            _ = try await transport.send(request)
            XCTFail("the send must time out while it waits")
        } catch {
            XCTAssertEqual(error.code, .timeout)
            XCTAssertTrue(error.message.contains("maxConcurrentTransfers"), error.message)
            XCTAssertEqual(error.url, "http://127.0.0.1:9/queued")
        }
        XCTAssertEqual(transport.session.transferGate.counts.running, 1)
        XCTAssertEqual(transport.session.transferGate.counts.waiting, 0)
    }

    func testAFanOutRequestThatCannotBeResolvedGivesItsPlaceBack() {
        let transport = transport(limit: 1)
        let results = transport.send(requests: [HTTPRequest(endpoint: "not a url"), HTTPRequest(endpoint: "http://127.0.0.1:9/after")])
        XCTAssertEqual(results.count, 2)
        XCTAssertEqual(results[0].error?.code, .invalidURL)
        XCTAssertNil(results[1].error, "the second request got the place the first gave back")
        XCTAssertEqual(transport.session.transferGate.counts.running, 0)
    }

    func testASendThatMustWaitWalksTheStepAndTakesThePlaceTheFirstGivesBack() async throws {
        let release = DispatchSemaphore(value: 0)
        var configuration = Session.Configuration()
        configuration.maxConcurrentTransfers = 1
        let engine = StubEngine { request in
            if request.url.path == "/first" { _ = release.wait(timeout: .now() + 20) }
            return RawResponse(request: request, statusCode: .ok, data: Data(request.url.path.utf8))
        }
        let transport = HTTPTransport(session: Session(configuration: configuration, engine: engine))
        let gate = transport.session.transferGate
        // The first passes at once (below the step) and holds the place inside the engine.
        let first = Task { try await transport.send(HTTPRequest(endpoint: "http://127.0.0.1:9/first")) }
        let deadline = ContinuousClock.now + .seconds(10)
        while gate.counts.running == 0, ContinuousClock.now < deadline { await Task.yield() }
        XCTAssertEqual(gate.counts.running, 1)
        let second = Task { try await transport.send(HTTPRequest(endpoint: "http://127.0.0.1:9/second")) }
        while gate.queuedCount == 0, ContinuousClock.now < deadline { await Task.yield() }
        XCTAssertEqual(gate.queuedCount, 1, "the second send waits at the gate's step")
        release.signal()
        let firstBody = try await first.value.body
        let secondBody = try await second.value.body
        XCTAssertEqual(firstBody.flatMap { String(data: $0, encoding: .utf8) }, "/first")
        XCTAssertEqual(secondBody.flatMap { String(data: $0, encoding: .utf8) }, "/second")
        XCTAssertEqual(gate.counts.running, 0)
        XCTAssertEqual(gate.counts.waiting, 0)
    }

    func testTheBlockingFormOfTheWaitEntersOrTimesOut() {
        let gate = TransferGate(limit: 1)
        XCTAssertEqual(gate.enterBlocking(deadline: .now + .seconds(5)), .entered)
        XCTAssertEqual(gate.enterBlocking(deadline: .now + .milliseconds(20)), .timedOut)
        XCTAssertEqual(gate.counts.running, 1)
        XCTAssertEqual(gate.counts.waiting, 0)
        gate.leave()
    }

    /// A body whose transfer goes on after the steps below answered (an async stream's head):
    /// it keeps the action until the test ends the transfer.
    private final class BodyPastTheAnswer: ResponseBodyConsumer, @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [@Sendable () -> Void] = []
        let runs: Bool

        init(runs: Bool) { self.runs = runs }

        func makeSink(for request: RawRequest, configuration: Session.Configuration) -> any BodySink { MemoryBody(limit: 1 << 20) }

        func afterTransfer(_ action: @escaping @Sendable () -> Void) -> Bool {
            guard runs else { return false }
            lock.withLock { kept.append(action) }
            return true
        }

        func endTransfer() { for action in lock.withLock({ kept }) { action() } }
    }

    func testAPlaceIsGivenBackWhenTheTransferBehindAnAnsweredHeadEndsNotBefore() async throws {
        let gate = TransferGate(limit: 1)
        let step = TransferGateStep(gate: gate)
        let session = Session()
        let context = HTTPSendContext(pipeline: SendPipeline(session: session, steps: []), control: TransferControl(),
                                      telemetry: session.sendEvents(), place: .held)
        for runs in [true, false] {
            _ = await gate.enter()
            let body = BodyPastTheAnswer(runs: runs)
            var request = RawRequest(url: try XCTUnwrap(URL(string: "http://127.0.0.1:9/stream")))
            request.bodyConsumer = body
            var (exchange, action) = step.start(request, context: context)
            guard case .forward = action.kind else { return XCTFail("the step forwards a request holding its place") }
            _ = step.resume(&exchange, with: RawResponse(request: request, statusCode: .ok), context: context)
            XCTAssertEqual(gate.counts.running, runs ? 1 : 0, runs ? "held while the transfer goes on" : "given back at once")
            body.endTransfer()
            XCTAssertEqual(gate.counts.running, 0)
        }
    }
}
