import Foundation
@testable import HTTPTransport
import XCTest

/// The origin guard's turn (`OriginGuard.Turn`) stepped by hand on a manual clock: what it waits
/// for (a token, a `Retry-After` pause), how long, what a wait that ends at the deadline or is
/// cancelled leaves behind; and which responses pause an origin, for how long.
final class OriginGuardTests: XCTestCase {
    private let clock = ManualClock()
    private let url = "http://api.test/a"

    private func session(_ limits: HostLimits) -> Session {
        var configuration = Session.Configuration()
        configuration.hostLimits = limits
        return Session(configuration: configuration, engine: StubEngine { RawResponse(request: $0, statusCode: .ok) },
                       clock: clock.clock)
    }

    private func origin() throws -> Origin { Origin(try XCTUnwrap(URL(string: url))) }

    /// A turn for a send with a 10 s time-out that started at 1 000 (the manual clock's start).
    private func turn(due: TimeInterval, hasToken: Bool = true) throws -> OriginGuard.Turn {
        let request = RawRequest(url: try XCTUnwrap(URL(string: url)), timeout: 10)
        return OriginGuard.Turn(pass: OriginGuard.Pass(request, (.send, shared: false)), start: 1_000, deadline: 1_010,
                                reserved: (due: due, hasToken: hasToken))
    }

    /// Steps `turn`: "go", or "wait <seconds> <reason>".
    private func step(_ turn: inout OriginGuard.Turn, _ guardian: OriginGuard) -> String {
        switch turn.step(guardian) {
        case .go: "go"
        case .wait(let seconds, let reason): "wait \(seconds) \(reason.rawValue)"
        }
    }

    /// The origin's bucket with its one token already reserved (as `reserve` leaves it).
    private func spendTheToken(_ guardian: OriginGuard, rate: Double) throws {
        guardian.update(try origin(), now: 1_000) { state in
            state.bucket = TokenBucket(rate: rate, burst: 1, now: 1_000)
            _ = state.bucket?.reserve(now: 1_000, within: 0)
        }
    }

    /// A session at 0.01 sends a second whose origin's one token is already reserved.
    private func slowSession() throws -> (Session, OriginGuard) {
        let session = session(HostLimits(requestsPerSecond: 0.01))
        let guardian = try XCTUnwrap(session.originGuard)
        try spendTheToken(guardian, rate: 0.01)
        return (session, guardian)
    }

    /// Ends the turn's wait after `seconds` (`completed` false: cancelled).
    private func endWait(_ turn: inout OriginGuard.Turn, after seconds: TimeInterval, completed: Bool = true,
                         reason: OriginGuard.WaitReason, _ session: Session) throws {
        let guardian = try XCTUnwrap(session.originGuard)
        clock.advance(seconds)
        turn.waited(completed, reason: reason, guardian, session.sendEvents())
    }

    private func tokens(_ guardian: OriginGuard) throws -> Double? {
        let origin = try origin()
        return guardian.origins.withLock { $0[origin]?.bucket?.tokens }
    }

    func testATurnWaitsForItsTokenThenGoesWithTheWaitTakenOffItsTimeOut() throws {
        let session = session(HostLimits(requestsPerSecond: 1))
        let guardian = try XCTUnwrap(session.originGuard)
        var turn = try turn(due: 1_002.5)
        XCTAssertEqual(step(&turn, guardian), "wait 2.5 rate_limit")
        try endWait(&turn, after: 2.5, reason: .rateLimit, session)
        XCTAssertEqual(step(&turn, guardian), "go")
        XCTAssertEqual(turn.pass.request.timeout, 7.5)
        XCTAssertTrue(turn.pass.waited)
        XCTAssertNil(turn.pass.failure)
        XCTAssertEqual(step(&turn, guardian), "go", "a turn that went stays gone")
    }

    func testATokenDueAtOnceGoesWithoutWaitingOrShorteningTheTimeOut() throws {
        let guardian = try XCTUnwrap(session(HostLimits(requestsPerSecond: 1)).originGuard)
        var turn = try turn(due: 1_000)
        XCTAssertEqual(step(&turn, guardian), "go")
        XCTAssertEqual(turn.pass.request.timeout, 10)
        XCTAssertFalse(turn.pass.waited)
    }

    func testAPauseLaterThanTheTokenIsWaitedForAsRetryAfter() throws {
        let session = session(HostLimits(requestsPerSecond: 1))
        let guardian = try XCTUnwrap(session.originGuard)
        guardian.update(try origin(), now: 1_000) { $0.pausedUntil = 1_004 }
        var turn = try turn(due: 1_001)
        XCTAssertEqual(step(&turn, guardian), "wait 4.0 retry_after")
        try endWait(&turn, after: 4, reason: .retryAfter, session)
        XCTAssertEqual(step(&turn, guardian), "go")
        XCTAssertEqual(turn.pass.request.timeout, 6)
    }

    func testAPauseBeyondTheDeadlineIsWaitedUntilTheDeadlineThenTimesOutAndGivesTheTokenBack() throws {
        let (session, guardian) = try slowSession()
        guardian.update(try origin(), now: 1_000) { $0.pausedUntil = 1_030 }
        var turn = try turn(due: 1_000)
        XCTAssertEqual(step(&turn, guardian), "wait 10.0 retry_after")
        try endWait(&turn, after: 10, reason: .retryAfter, session)
        let failure = try XCTUnwrap(turn.pass.failure)
        XCTAssertEqual(step(&turn, guardian), "go", "to its failure")
        XCTAssertEqual(failure.code, .timeout)
        XCTAssertTrue(failure.message.contains("ran out after 10.0 s waiting for its turn to send to http://api.test:80"),
                      failure.message)
        XCTAssertTrue(failure.message.contains("Retry-After"), failure.message)
        XCTAssertEqual(try tokens(guardian), 1, "10 s at 0.01/s refilled 0.1; the unused token came back")
    }

    func testATurnWithoutATokenInTimeFailsAtItsDeadlineAndGivesNothingBack() throws {
        let (session, guardian) = try slowSession()
        var turn = try turn(due: 1_010, hasToken: false)
        XCTAssertEqual(step(&turn, guardian), "wait 10.0 rate_limit")
        try endWait(&turn, after: 10, reason: .rateLimit, session)
        let failure = try XCTUnwrap(turn.pass.failure)
        XCTAssertEqual(failure.code, .timeout)
        XCTAssertTrue(failure.message.contains("allow 0.01 request(s) a second, burst 1"), failure.message)
        XCTAssertEqual(try tokens(guardian), 0, "it had no token to give back")
    }

    func testACancelledWaitFailsWithCancelledAndGivesTheTokenBack() throws {
        let (session, guardian) = try slowSession()
        var turn = try turn(due: 1_005)
        XCTAssertEqual(step(&turn, guardian), "wait 5.0 rate_limit")
        try endWait(&turn, after: 1, completed: false, reason: .rateLimit, session)
        let failure = try XCTUnwrap(turn.pass.failure)
        XCTAssertEqual(failure.code, .cancelled)
        XCTAssertEqual(failure.url, url)
        XCTAssertTrue(failure.message.contains("cancelled while waiting for its turn"), failure.message)
        XCTAssertEqual(try tokens(guardian), 1)
        XCTAssertEqual(step(&turn, guardian), "go", "to its failure: no second wait")
    }

    // MARK: Retry-After pauses

    /// Host limits without a rate: only `Retry-After` pauses.
    private func pausing() -> Session.Configuration {
        var configuration = Session.Configuration()
        configuration.hostLimits = HostLimits()
        return configuration
    }

    private func pausedUntil(_ session: Session) throws -> TimeInterval? {
        let origin = try origin()
        return try XCTUnwrap(session.originGuard).origins.withLock { $0[origin]?.pausedUntil }
    }

    func testOnlyA429Or503WithAPositiveReadableRetryAfterPausesTheOrigin() throws {
        let answers: [(Int, String)] = [(200, "5"), (500, "5"), (302, "5"), (429, "soon"), (429, "0"), (503, "-5"), (503, "7")]
        let stub = ClockedStub(clock: clock) { request, number in
            let (status, value) = answers[min(number, answers.count) - 1]
            return RawResponse(request: request, statusCode: HTTPStatusCode(rawValue: status), headers: ["Retry-After": value])
        }
        let transport = stub.transport(pausing())
        for _ in 0..<6 { _ = transport.send(request: HTTPRequest(endpoint: url)) }
        XCTAssertEqual(try pausedUntil(transport.session) ?? 0, 0, "nothing paused it")
        _ = transport.send(request: HTTPRequest(endpoint: url))
        XCTAssertEqual(try pausedUntil(transport.session), 1_007)
        _ = transport.send(request: HTTPRequest(endpoint: url))
        XCTAssertEqual(stub.recorded.map { $0.time - 1_000 }, [0, 0, 0, 0, 0, 0, 0, 7])
    }

    func testAPauseIsAtMostADay() throws {
        let stub = ClockedStub(clock: clock) { request, _ in
            RawResponse(request: request, statusCode: .tooManyRequests, headers: ["Retry-After": "999999999"])
        }
        let transport = stub.transport(pausing())
        _ = transport.send(request: HTTPRequest(endpoint: url))
        XCTAssertEqual(try pausedUntil(transport.session), 1_000 + 86_400)
    }

    func testLimitsOutOfRangeMeanNoRateAndABurstOfOne() {
        for rate in [0, -3, Double.infinity, .nan] {
            XCTAssertNil(HostLimits(requestsPerSecond: rate).requestsPerSecond, "\(rate)")
        }
        XCTAssertEqual(HostLimits(requestsPerSecond: 2.5).requestsPerSecond, 2.5)
        XCTAssertEqual(HostLimits(burst: -4).burst, 1)
    }
}
