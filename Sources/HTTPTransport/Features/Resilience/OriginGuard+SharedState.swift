import Foundation

/// Where an origin guard shares its buckets, pauses and circuits with other sessions (the
/// session's `sharedState`, see Fleet). Each answer is nil or `false` when the store did not
/// answer: the guard then decides with the session's own state.
protocol OriginStateSharing: Sendable {
    /// The shared circuit's admission.
    func admission(_ origin: Origin, breaker: CircuitBreaker, lease: TimeInterval) -> CircuitState.Admission?
    /// Counts an outcome for the shared circuit.
    func record(_ outcome: CircuitState.Outcome, _ origin: Origin, breaker: CircuitBreaker, probe: Bool) -> Bool
    /// Reserves the shared bucket's token: seconds until it is due (nil: none within
    /// `seconds`, nothing taken), and seconds the origin's shared pause still holds.
    func reserveTurn(_ origin: Origin, limits: HostLimits, within seconds: TimeInterval)
        -> (wait: TimeInterval?, pausedFor: TimeInterval)?
    /// Gives a shared token back.
    func returnToken(_ origin: Origin, limits: HostLimits) -> Bool
    /// Shares a `Retry-After` pause.
    func pause(_ origin: Origin, seconds: TimeInterval)
}

/// The per-origin rules' questions to the shared store. Each answers nil or `false` when there
/// is no store or it did not answer.
extension OriginGuard {
    /// The shared circuit's admission.
    func sharedAdmission(_ origin: Origin, breaker: CircuitBreaker, lease: TimeInterval) -> CircuitState.Admission? {
        shared?.admission(origin, breaker: breaker, lease: max(1, lease))
    }

    /// Counts an outcome for the shared circuit; `false` when the store did not take it.
    func sharedRecord(_ outcome: CircuitState.Outcome, _ origin: Origin, breaker: CircuitBreaker, probe: Bool) -> Bool {
        shared?.record(outcome, origin, breaker: breaker, probe: probe) ?? false
    }

    /// The shared bucket's token and the shared pause, as `reserve` gives them: when the send
    /// may go (monotonic seconds) and whether it holds a token. A shared pause is also kept in
    /// the session's own state, where the turn reads it.
    func sharedReserve(_ origin: Origin, limits: HostLimits, start: TimeInterval, deadline: TimeInterval)
        -> (due: TimeInterval, hasToken: Bool)? {
        guard let turn = shared?.reserveTurn(origin, limits: limits, within: max(0, deadline - start)) else { return nil }
        if turn.pausedFor > 0 {
            let until = start + turn.pausedFor
            update(origin, now: start) { $0.pausedUntil = max($0.pausedUntil, until) }
        }
        guard let wait = turn.wait else { return (deadline, false) }
        return (start + max(0, wait), true)
    }

    /// Gives a shared token back; `false` when the store did not take it.
    func sharedGiveBack(_ origin: Origin, limits: HostLimits) -> Bool {
        shared?.returnToken(origin, limits: limits) ?? false
    }

    /// Shares a `Retry-After` pause.
    func sharedPause(_ origin: Origin, seconds: TimeInterval) {
        shared?.pause(origin, seconds: seconds)
    }
}
