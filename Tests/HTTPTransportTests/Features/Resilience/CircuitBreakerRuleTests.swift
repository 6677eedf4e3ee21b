import Foundation
@testable import HTTPTransport
import InMemoryTracing
import MetricsTestKit
import XCTest

/// `CircuitBreaker` through `StubEngine` and a manual clock: which failures open it, what an
/// open circuit answers, the one probe, and its telemetry.
final class CircuitBreakerRuleTests: XCTestCase {
    private func configuration(threshold: Int = 3, open: TimeInterval = 30) -> Session.Configuration {
        var configuration = Session.Configuration()
        configuration.circuitBreaker = CircuitBreaker(failureThreshold: threshold, openDuration: open)
        return configuration
    }

    private let url = "http://api.test/jobs"

    /// Answers with the statuses in order (0: a refused connection), then 200.
    private func stub(_ clock: ManualClock, _ statuses: [Int]) -> ClockedStub {
        ClockedStub(clock: clock) { request, number in
            guard number <= statuses.count else { return RawResponse(request: request, statusCode: .ok) }
            let status = statuses[number - 1]
            if status == 0 {
                return RawResponse(request: request, error: HTTPTransportError(code: .cannotConnect, message: "refused"))
            }
            return RawResponse(request: request, statusCode: HTTPStatusCode(rawValue: status))
        }
    }

    func testConsecutiveFailuresOpenItAndThenNothingIsSent() throws {
        let clock = ManualClock()
        let stub = stub(clock, [503, 0, 500])
        let transport = stub.transport(configuration())
        for _ in 0..<3 { XCTAssertFalse(transport.send(request: HTTPRequest(endpoint: url)).isSuccess) }
        let error = try XCTUnwrap(transport.send(request: HTTPRequest(endpoint: url)).error)
        XCTAssertEqual(error.code, .circuitOpen)
        XCTAssertEqual(error.code.rawValue, 18)
        XCTAssertEqual(stub.count, 3, "an open circuit sends nothing")
        XCTAssertTrue(error.message.contains("http://api.test:80"), error.message)
        XCTAssertTrue(error.message.contains("since 2027-01-15T08:00:00"), error.message)
        XCTAssertTrue(error.message.contains("until 2027-01-15T08:00:30"), error.message)
        XCTAssertTrue(error.message.contains("status 500"), "names the last failure: \(error.message)")
        XCTAssertEqual(error.url, url)
    }

    func testEveryListedFailureKindCounts() {
        let codes: [HTTPTransportError.Code] = [.cannotConnect, .nameResolution, .timeout, .tlsFailure, .badResponse]
        for code in codes {
            let stub = ClockedStub(clock: ManualClock()) { request, _ in
                RawResponse(request: request, error: HTTPTransportError(code: code, message: "failed"))
            }
            let transport = stub.transport(configuration(threshold: 1))
            _ = transport.send(request: HTTPRequest(endpoint: url))
            XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: url)).error?.code, .circuitOpen, "\(code)")
        }
        for status in [500, 502, 503, 504] {
            let transport = stub(ManualClock(), [status]).transport(configuration(threshold: 1))
            _ = transport.send(request: HTTPRequest(endpoint: url))
            XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: url)).error?.code, .circuitOpen, "\(status)")
        }
    }

    func testOtherStatusesAndLocalFailuresDoNotOpenIt() {
        let stub = stub(ManualClock(), [404, 429, 501, 400, 401])
        let transport = stub.transport(configuration(threshold: 1))
        for _ in 0..<6 { XCTAssertNotEqual(transport.send(request: HTTPRequest(endpoint: url)).error?.code, .circuitOpen) }
        let cancelled = ClockedStub(clock: ManualClock()) { request, _ in
            RawResponse(request: request, error: HTTPTransportError(code: .cancelled, message: "cancelled"))
        }.transport(configuration(threshold: 1))
        for _ in 0..<3 { XCTAssertEqual(cancelled.send(request: HTTPRequest(endpoint: url)).error?.code, .cancelled) }
    }

    func testASuccessResetsTheCount() {
        let stub = stub(ManualClock(), [503, 503, 200, 503, 503, 200])
        let transport = stub.transport(configuration(threshold: 3))
        for _ in 0..<7 { XCTAssertNotEqual(transport.send(request: HTTPRequest(endpoint: url)).error?.code, .circuitOpen) }
        XCTAssertEqual(stub.count, 7)
    }

    func testEachOriginHasItsOwnCircuit() {
        let stub = stub(ManualClock(), [503])
        let transport = stub.transport(configuration(threshold: 1))
        _ = transport.send(request: HTTPRequest(endpoint: url))
        XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: url)).error?.code, .circuitOpen)
        XCTAssertTrue(transport.send(request: HTTPRequest(endpoint: "http://api.test:8080/jobs")).isSuccess)
        XCTAssertTrue(transport.send(request: HTTPRequest(endpoint: "https://api.test/jobs")).isSuccess)
    }

    func testAfterOpenDurationOneProbeGoesAndItsSuccessClosesTheCircuit() {
        let clock = ManualClock()
        let stub = stub(clock, [503, 503])
        let transport = stub.transport(configuration(threshold: 2, open: 30))
        for _ in 0..<2 { _ = transport.send(request: HTTPRequest(endpoint: url)) }
        clock.advance(29.9)
        XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: url)).error?.code, .circuitOpen)
        clock.advance(0.1)
        XCTAssertTrue(transport.send(request: HTTPRequest(endpoint: url)).isSuccess, "the probe")
        XCTAssertTrue(transport.send(request: HTTPRequest(endpoint: url)).isSuccess, "closed again")
        XCTAssertEqual(stub.count, 4)
    }

    func testAFailedProbeOpensItAgainForAnotherOpenDuration() throws {
        let clock = ManualClock()
        let stub = stub(clock, [503, 503, 502])
        let transport = stub.transport(configuration(threshold: 2, open: 10))
        for _ in 0..<2 { _ = transport.send(request: HTTPRequest(endpoint: url)) }
        clock.advance(10)
        XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: url)).error?.httpStatusCode, .badGateway)
        clock.advance(9)
        let error = try XCTUnwrap(transport.send(request: HTTPRequest(endpoint: url)).error)
        XCTAssertEqual(error.code, .circuitOpen)
        XCTAssertTrue(error.message.contains("after its probe failed (status 502"), error.message)
        clock.advance(1)
        XCTAssertTrue(transport.send(request: HTTPRequest(endpoint: url)).isSuccess)
        XCTAssertEqual(stub.count, 4)
    }

    /// 16 threads at an open circuit whose open time is over: exactly one probe reaches the
    /// engine (it answers only once the 15 others were refused), and its success closes it.
    func testSixteenThreadsSendExactlyOneProbe() {
        let clock = ManualClock()
        let refused = DispatchSemaphore(value: 0)
        let stub = ClockedStub(clock: clock) { request, number in
            if number == 1 { return RawResponse(request: request, statusCode: .serviceUnavailable) }
            // The probe: it answers once the 15 others have been refused.
            if number == 2 { for _ in 0..<15 { _ = refused.wait(timeout: .now() + 10) } }
            return RawResponse(request: request, statusCode: .ok)
        }
        let transport = stub.transport(configuration(threshold: 1, open: 5))
        _ = transport.send(request: HTTPRequest(endpoint: url))
        clock.advance(5)
        let codes = Protected<[HTTPTransportError.Code?]>([])
        let messages = Protected<[String]>([])
        let request = HTTPRequest(endpoint: url)
        let finished = DispatchGroup()
        for _ in 0..<16 {
            finished.enter()
            Thread.detachNewThread {
                let result = transport.send(request: request)
                codes.withLock { $0.append(result.error?.code) }
                messages.withLock { $0.append(result.error?.message ?? "") }
                if result.error?.code == .circuitOpen { refused.signal() }
                finished.leave()
            }
        }
        XCTAssertEqual(finished.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(stub.count, 2, "the failure that opened it, and one probe")
        XCTAssertEqual(codes.value.filter { $0 == .circuitOpen }.count, 15)
        XCTAssertEqual(codes.value.filter { $0 == nil }.count, 1)
        XCTAssertEqual(messages.value.filter { $0.contains("the one probe, sent at 2027-01-15T08:00:05") }.count, 15)
        XCTAssertTrue(transport.send(request: HTTPRequest(endpoint: url)).isSuccess, "the probe closed it")
    }

    func testAnOpenCircuitRefusesWithoutWaitingForATokenOfTheRate() {
        let clock = ManualClock()
        var configuration = configuration(threshold: 1)
        configuration.hostLimits = HostLimits(requestsPerSecond: 1, burst: 1)
        let transport = stub(clock, [503]).transport(configuration)
        _ = transport.send(request: HTTPRequest(endpoint: url))
        for _ in 0..<3 { XCTAssertEqual(transport.send(request: HTTPRequest(endpoint: url)).error?.code, .circuitOpen) }
        XCTAssertTrue(clock.waits.isEmpty)
    }

    func testIdleOriginsAreForgottenWhenThereAreMany() throws {
        let transport = ClockedStub(clock: ManualClock()).transport(configuration(threshold: 1))
        let count = OriginTable.forgetIdleAbove + 10
        for index in 0..<count { _ = transport.send(request: HTTPRequest(endpoint: "http://h\(index).test/")) }
        let origins = try XCTUnwrap(transport.session.originGuard?.originCount)
        XCTAssertLessThan(origins, count, "closed circuits with no failure are the same as new ones")
    }

    func testRefusalsAreCountedByOriginAndMarkedOnTheSpan() throws {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        var configuration = configuration(threshold: 1)
        configuration.metricsFactory = metrics
        configuration.tracer = tracer
        let transport = stub(ManualClock(), [503]).transport(configuration)
        for _ in 0..<3 { _ = transport.send(request: HTTPRequest(endpoint: url)) }
        let counter = try metrics.expectCounter("http.client.circuit_breaker.refusals",
                                                [("server.address", "api.test"), ("server.port", "80")])
        XCTAssertEqual(counter.totalValue, 2)
        let refusedSpans = tracer.finishedSpans.filter { $0.events.contains { $0.name == "http.client.circuit_open" } }
        XCTAssertEqual(refusedSpans.count, 2)
        XCTAssertEqual(refusedSpans.first?.attributes.get("error.type"), .string("circuit_open"))
    }
}
