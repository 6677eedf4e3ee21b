import Foundation
@testable import HTTPTransport
import XCTest

/// `CircuitState` on its own, transition by transition, at chosen monotonic times: what each
/// outcome does to a closed, open and probing circuit (no engine, no session, no threads).
final class CircuitStateTests: XCTestCase {
    private let origin = Origin(URL(string: "http://api.test/jobs") ?? URL(fileURLWithPath: "/"))
    private let date = Date(timeIntervalSince1970: 1_800_000_000)

    private func circuit(threshold: Int = 3, open: TimeInterval = 30) -> CircuitState {
        CircuitState(breaker: CircuitBreaker(failureThreshold: threshold, openDuration: open), origin: origin)
    }

    /// A circuit opened at monotonic second 100 by `threshold` failures.
    private func opened(threshold: Int = 3, open: TimeInterval = 30) -> CircuitState {
        var state = circuit(threshold: threshold, open: open)
        for _ in 0..<threshold { state.record(.failure("boom"), probe: false, now: 100, date: date) }
        return state
    }

    private func admission(_ state: inout CircuitState, at now: TimeInterval) -> String {
        switch state.admit(now: now, date: date.addingTimeInterval(now - 100)) {
        case .send: "send"
        case .probe: "probe"
        case .refuse(let message): message.contains("the one probe") ? "refuse (probing)" : "refuse (open)"
        }
    }

    func testANewCircuitIsIdleAndSends() {
        var state = circuit()
        XCTAssertTrue(state.isIdle)
        XCTAssertEqual(admission(&state, at: 0), "send")
    }

    func testItOpensOnTheThresholdsFailureAndNotOneBefore() {
        var state = circuit(threshold: 3)
        state.record(.failure("first"), probe: false, now: 100, date: date)
        state.record(.failure("second"), probe: false, now: 100, date: date)
        XCTAssertEqual(state.consecutiveFailures, 2)
        XCTAssertFalse(state.isIdle, "a failure counted is something to remember")
        XCTAssertEqual(admission(&state, at: 100), "send")
        state.record(.failure("third"), probe: false, now: 100, date: date)
        guard case .refuse(let message) = state.admit(now: 100, date: date) else { return XCTFail("open after 3") }
        XCTAssertTrue(message.contains("after 3 consecutive failures (the last: third)"), message)
        XCTAssertTrue(message.contains("since \(CircuitState.format(date)) until \(CircuitState.format(date.addingTimeInterval(30)))"),
                      message)
    }

    func testNeutralOutcomesNeitherCountNorReset() {
        var state = circuit(threshold: 3)
        state.record(.failure("a"), probe: false, now: 1, date: date)
        state.record(.failure("b"), probe: false, now: 2, date: date)
        state.record(.neutral, probe: false, now: 3, date: date)
        XCTAssertEqual(state.consecutiveFailures, 2)
        state.record(.failure("c"), probe: false, now: 4, date: date)
        XCTAssertEqual(admission(&state, at: 4), "refuse (open)")
    }

    func testASuccessBeforeTheThresholdStartsTheCountAgain() {
        var state = circuit(threshold: 2)
        state.record(.failure("a"), probe: false, now: 1, date: date)
        state.record(.success, probe: false, now: 2, date: date)
        XCTAssertEqual(state.consecutiveFailures, 0)
        XCTAssertTrue(state.isIdle)
        state.record(.failure("b"), probe: false, now: 3, date: date)
        XCTAssertEqual(admission(&state, at: 3), "send")
    }

    func testTheOpenTimeEndsExactlyAtOpenDurationAndThenOneProbeGoes() {
        var state = opened(open: 30)
        XCTAssertEqual(admission(&state, at: 129.999), "refuse (open)")
        XCTAssertEqual(admission(&state, at: 130), "probe")
        XCTAssertEqual(admission(&state, at: 130), "refuse (probing)", "one probe at a time")
        XCTAssertEqual(admission(&state, at: 500), "refuse (probing)", "until the probe answers, however long")
    }

    func testTheProbesRefusalNamesWhenItWasSent() {
        var state = opened(open: 30)
        _ = state.admit(now: 130, date: date.addingTimeInterval(30))
        guard case .refuse(let message) = state.admit(now: 131, date: date.addingTimeInterval(31)) else {
            return XCTFail("the probe is under way")
        }
        XCTAssertTrue(message.contains("the one probe, sent at \(CircuitState.format(date.addingTimeInterval(30)))"), message)
    }

    func testTheProbesSuccessClosesTheCircuit() {
        var state = opened()
        XCTAssertEqual(admission(&state, at: 130), "probe")
        state.record(.success, probe: true, now: 131, date: date)
        XCTAssertTrue(state.isIdle)
        XCTAssertEqual(admission(&state, at: 131), "send")
        XCTAssertEqual(admission(&state, at: 131), "send", "closed: no probe any more")
    }

    func testTheProbesFailureOpensItAgainFromTheTimeOfThatFailure() {
        var state = opened(open: 30)
        XCTAssertEqual(admission(&state, at: 130), "probe")
        state.record(.failure("timeout: slow"), probe: true, now: 135, date: date.addingTimeInterval(35))
        guard case .refuse(let message) = state.admit(now: 164.9, date: date) else { return XCTFail("open again") }
        XCTAssertTrue(message.contains("after its probe failed (timeout: slow)"), message)
        XCTAssertFalse(message.contains("the one probe"), "open, not probing")
        XCTAssertEqual(admission(&state, at: 165), "probe")
    }

    func testALateSuccessOfASendMadeBeforeItOpenedDoesNotCloseIt() {
        var state = opened()
        state.record(.success, probe: false, now: 110, date: date)
        XCTAssertEqual(admission(&state, at: 110), "refuse (open)")
        XCTAssertFalse(state.isIdle)
    }

    func testLateFailuresWhileOpenDoNotProlongTheOpenTime() {
        var state = opened(open: 30)
        state.record(.failure("late"), probe: false, now: 125, date: date)
        XCTAssertEqual(admission(&state, at: 130), "probe")
    }

    func testAProbeThatEndsWithoutAVerdictLetsTheNextSendProbe() {
        var state = opened()
        XCTAssertEqual(admission(&state, at: 130), "probe")
        state.record(.neutral, probe: true, now: 131, date: date)
        XCTAssertEqual(admission(&state, at: 131), "probe")
        XCTAssertEqual(admission(&state, at: 131), "refuse (probing)")
    }

    func testAThresholdBelowOneIsOneAndANegativeOpenDurationProbesAtOnce() {
        let breaker = CircuitBreaker(failureThreshold: 0, openDuration: -5)
        XCTAssertEqual(breaker.failureThreshold, 1)
        XCTAssertEqual(breaker.openDuration, 0)
        XCTAssertEqual(CircuitBreaker(openDuration: .infinity).openDuration, 30)
        XCTAssertEqual(CircuitBreaker(openDuration: .nan).openDuration, 30)
        var state = CircuitState(breaker: breaker, origin: origin)
        state.record(.failure("once"), probe: false, now: 7, date: date)
        XCTAssertEqual(admission(&state, at: 7), "probe")
    }

    func testAResponseWithNeitherStatusNorErrorCountsAsAFailure() throws {
        let request = RawRequest(url: try XCTUnwrap(URL(string: "http://api.test/")))
        guard case .failure(let reason) = CircuitState.outcome(of: RawResponse(request: request)) else {
            return XCTFail("no status says the origin failed")
        }
        XCTAssertEqual(reason, "no response status")
        guard case .failure(let status) = CircuitState.outcome(of: RawResponse(request: request, statusCode: .gatewayTimeout)) else {
            return XCTFail("504 is a failure")
        }
        XCTAssertEqual(status, "status 504 Gateway Timeout")
    }
}
