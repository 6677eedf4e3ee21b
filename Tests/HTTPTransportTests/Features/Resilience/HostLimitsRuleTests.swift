import Foundation
@testable import HTTPTransport
import InMemoryTracing
import XCTest

/// `HostLimits` through `StubEngine` and a manual clock: the token bucket per origin, waiting
/// within the request's deadline, and `Retry-After` pauses for every send of the session.
final class HostLimitsRuleTests: XCTestCase {
    private func configuration(_ limits: HostLimits) -> Session.Configuration {
        var configuration = Session.Configuration()
        configuration.hostLimits = limits
        return configuration
    }

    private func get(_ url: String = "http://api.test/a", timeout: TimeInterval = 30) -> HTTPRequest {
        HTTPRequest(endpoint: url, timeout: timeout)
    }

    func testBurstGoesAtOnceThenOneSendPerInterval() {
        let stub = ClockedStub(clock: ManualClock())
        let transport = stub.transport(configuration(HostLimits(requestsPerSecond: 10, burst: 2)))
        for _ in 0..<4 { XCTAssertTrue(transport.send(request: get()).isSuccess) }
        let times = stub.recorded.map { $0.time - 1_000 }
        XCTAssertEqual(times.count, 4)
        XCTAssertEqual(times[0], 0, accuracy: 1e-9)
        XCTAssertEqual(times[1], 0, accuracy: 1e-9, "the bucket starts full: a burst of 2")
        XCTAssertEqual(times[2], 0.1, accuracy: 1e-9)
        XCTAssertEqual(times[3], 0.2, accuracy: 1e-9)
    }

    func testEachOriginHasItsOwnBucket() {
        let stub = ClockedStub(clock: ManualClock())
        let transport = stub.transport(configuration(HostLimits(requestsPerSecond: 1, burst: 1)))
        for url in ["http://a.test/", "https://a.test/", "http://a.test:8080/", "http://B.test/", "http://b.test/x"] {
            XCTAssertTrue(transport.send(request: get(url)).isSuccess)
        }
        XCTAssertEqual(stub.recorded.map { $0.time - 1_000 }, [0, 0, 0, 0, 1],
                       "scheme, host (any case) and port make the origin; the path does not")
    }

    func testASendWhoseTokenComesAfterItsDeadlineTimesOutWithNothingSent() throws {
        let clock = ManualClock()
        let stub = ClockedStub(clock: clock)
        let transport = stub.transport(configuration(HostLimits(requestsPerSecond: 1, burst: 1)))
        XCTAssertTrue(transport.send(request: get()).isSuccess)
        let error = try XCTUnwrap(transport.send(request: get(timeout: 0.5)).error)
        XCTAssertEqual(error.code, .timeout)
        XCTAssertTrue(error.message.contains("http://api.test:80"), error.message)
        XCTAssertTrue(error.message.contains("nothing was sent"), error.message)
        XCTAssertEqual(stub.count, 1)
        XCTAssertEqual(clock.waits, [0.5], "it waited for its whole time-out, not longer")
        // The token it did not take is still there for the next send.
        XCTAssertTrue(transport.send(request: get()).isSuccess)
        XCTAssertEqual(stub.recorded.last.map { $0.time - 1_000 } ?? 0, 1, accuracy: 1e-9)
    }

    func testTheWaitComesOutOfTheRequestsTimeOut() {
        let stub = ClockedStub(clock: ManualClock())
        let transport = stub.transport(configuration(HostLimits(requestsPerSecond: 4, burst: 1)))
        XCTAssertTrue(transport.send(request: get(timeout: 10)).isSuccess)
        XCTAssertTrue(transport.send(request: get(timeout: 10)).isSuccess)
        XCTAssertEqual(stub.recorded.map(\.request.timeout), [10, 9.75])
    }

    func testRetryAfterSecondsPausesEverySendToThatOrigin() {
        let clock = ManualClock()
        let stub = ClockedStub(clock: clock) { request, number in
            number == 1 ? RawResponse(request: request, statusCode: .tooManyRequests, headers: ["Retry-After": "2"])
                : RawResponse(request: request, statusCode: .ok)
        }
        let transport = stub.transport(configuration(HostLimits()))
        XCTAssertEqual(transport.send(request: get()).error?.httpStatusCode, .tooManyRequests)
        XCTAssertTrue(transport.send(request: get("http://other.test/")).isSuccess, "another origin is not held")
        XCTAssertTrue(transport.send(request: get("http://api.test/b")).isSuccess)
        XCTAssertEqual(stub.recorded.map { $0.time - 1_000 }, [0, 0, 2])
    }

    func testRetryAfterDateOn503PausesUntilThatDate() {
        let clock = ManualClock()
        let date = IMFFixdate.format(ManualClock.startDate.addingTimeInterval(3))
        let stub = ClockedStub(clock: clock) { request, number in
            number == 1 ? RawResponse(request: request, statusCode: .serviceUnavailable, headers: ["Retry-After": date])
                : RawResponse(request: request, statusCode: .ok)
        }
        let transport = stub.transport(configuration(HostLimits(requestsPerSecond: 100, burst: 10)))
        XCTAssertFalse(transport.send(request: get()).isSuccess)
        XCTAssertTrue(transport.send(request: get()).isSuccess)
        XCTAssertEqual(stub.recorded.map { $0.time - 1_000 }, [0, 3])
    }

    func testAPauseLongerThanTheDeadlineTimesOut() throws {
        let clock = ManualClock()
        let stub = ClockedStub(clock: clock) { request, _ in
            RawResponse(request: request, statusCode: .serviceUnavailable, headers: ["Retry-After": "60"])
        }
        let transport = stub.transport(configuration(HostLimits()))
        XCTAssertFalse(transport.send(request: get()).isSuccess)
        let error = try XCTUnwrap(transport.send(request: get(timeout: 5)).error)
        XCTAssertEqual(error.code, .timeout)
        XCTAssertTrue(error.message.contains("Retry-After"), error.message)
        XCTAssertEqual(stub.count, 1)
        XCTAssertEqual(clock.waits, [5])
    }

    func testRetryAfterIsIgnoredWhenPausesAreOff() {
        let stub = ClockedStub(clock: ManualClock()) { request, number in
            number == 1 ? RawResponse(request: request, statusCode: .tooManyRequests, headers: ["Retry-After": "9"])
                : RawResponse(request: request, statusCode: .ok)
        }
        let transport = stub.transport(configuration(HostLimits(pausesOnRetryAfter: false)))
        XCTAssertFalse(transport.send(request: get()).isSuccess)
        XCTAssertTrue(transport.send(request: get()).isSuccess)
        XCTAssertEqual(stub.recorded.map { $0.time - 1_000 }, [0, 0])
    }

    func testACacheHitTakesNoToken() {
        let clock = ManualClock()
        let stub = ClockedStub(clock: clock) { request, _ in
            RawResponse(request: request, statusCode: .ok, headers: ["Cache-Control": "max-age=600"], data: Data("x".utf8))
        }
        var configuration = configuration(HostLimits(requestsPerSecond: 1, burst: 1))
        configuration.cache = HTTPCache()
        let transport = stub.transport(configuration)
        for _ in 0..<3 { XCTAssertTrue(transport.send(request: get()).isSuccess) }
        XCTAssertEqual(stub.count, 1)
        XCTAssertTrue(clock.waits.isEmpty, "hits never wait for the origin's rate")
    }

    func testAWaitIsMarkedOnTheHopsSpan() throws {
        let tracer = InMemoryTracer()
        var configuration = configuration(HostLimits(requestsPerSecond: 2, burst: 1))
        configuration.tracer = tracer
        let transport = ClockedStub(clock: ManualClock()).transport(configuration)
        for _ in 0..<2 { XCTAssertTrue(transport.send(request: get()).isSuccess) }
        let spans = tracer.finishedSpans
        XCTAssertEqual(spans.count, 2)
        XCTAssertTrue(spans[0].events.isEmpty)
        XCTAssertEqual(spans[1].events.count, 1)
        let event = try XCTUnwrap(spans[1].events.first)
        XCTAssertEqual(event.name, "http.client.origin_wait")
        XCTAssertEqual(event.attributes.get("http.client.origin_wait.reason"), .string("rate_limit"))
        XCTAssertEqual(event.attributes.get("http.client.origin_wait.duration"), .double(0.5))
    }

    /// A transport whose sends wait in real time, for a token due in 20 s, and a semaphore
    /// signalled when a send starts waiting.
    private func slowTransport() -> (HTTPTransport, DispatchSemaphore) {
        let waiting = DispatchSemaphore(value: 0)
        let clock = ResilienceClock(now: ResilienceClock.system.now, date: ResilienceClock.system.date) { seconds, cancellation in
            waiting.signal()
            return ResilienceClock.system.wait(seconds, cancellation)
        }
        let engine = StubEngine { RawResponse(request: $0, statusCode: .ok) }
        let session = Session(configuration: configuration(HostLimits(requestsPerSecond: 0.05, burst: 1)), engine: engine, clock: clock)
        let transport = HTTPTransport(session: session)
        XCTAssertTrue(transport.send(request: get()).isSuccess)
        return (transport, waiting)
    }

    /// Real time: a send waiting for its token returns as soon as it is cancelled.
    func testWaitingForATokenEndsOnCancellation() {
        let (transport, waiting) = slowTransport()
        let cancellation = CancellationHandle()
        let started = ContinuousClock.now
        let done = DispatchSemaphore(value: 0)
        let request = get()
        let result = Protected<HTTPTransport.Result?>(nil)
        Thread.detachNewThread {
            result.value = transport.send(request: request, control: TransferControl(cancellation: cancellation))
            done.signal()
        }
        XCTAssertEqual(waiting.wait(timeout: .now() + 10), .success)
        cancellation.cancel()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(result.value?.error?.code, .cancelled)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
    }

    func testAsyncSendsTakeTheirTokensFromTheSameBucket() async throws {
        let stub = ClockedStub(clock: ManualClock())
        let transport = stub.transport(configuration(HostLimits(requestsPerSecond: 10, burst: 1)))
        XCTAssertTrue(transport.send(request: get()).isSuccess)
        _ = try await transport.send(get())
        XCTAssertEqual(stub.recorded.map { $0.time - 1_000 }.last ?? 0, 0.1, accuracy: 1e-9)
    }

    /// Real time: cancelling the task of an async send ends its wait for a token.
    func testCancellingAnAsyncSendEndsItsWait() async {
        let (transport, waiting) = slowTransport()
        let started = ContinuousClock.now
        let request = get()
        let task = Task { try await transport.send(request) }
        await Task.detached { _ = waiting.wait(timeout: .now() + 10) }.value
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("the send went through")
        } catch {
            XCTAssertEqual((error as? HTTPTransportError)?.code, .cancelled)
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
    }
}

/// IMF-fixdate, as servers write `Retry-After` dates.
enum IMFFixdate {
    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
