import Foundation

/// The per-origin rules' questions to the shared store (`SharedOriginState`). Each answers nil
/// or `false` when there is no store or it did not answer: the guard then decides with the
/// session's own state.
extension OriginGuard {
    /// The shared circuit's admission.
    func sharedAdmission(_ origin: Origin, breaker: CircuitBreaker, lease: TimeInterval) -> CircuitState.Admission? {
        let key = origin.description
        guard let answer = shared?.ask({ $0.admit(origin: key, breaker: breaker, probeLease: max(1, lease)) }) else { return nil }
        switch answer {
        case .send: return .send
        case .probe: return .probe
        case .open(let since, let until, let reason):
            return .refuse(CircuitState.openRefusal(origin, since: since, until: until, after: reason))
        case .probing(let since):
            return .refuse(CircuitState.probeRefusal(origin, since: since))
        }
    }

    /// Counts an outcome for the shared circuit; `false` when the store did not take it.
    func sharedRecord(_ outcome: CircuitState.Outcome, _ origin: Origin, breaker: CircuitBreaker, probe: Bool) -> Bool {
        guard let shared else { return false }
        let key = origin.description
        let counted: SharedCircuitOutcome = switch outcome {
        case .success: .success
        case .failure(let reason): .failure(reason: reason)
        case .neutral: .neutral
        }
        return shared.tell { $0.record(origin: key, breaker: breaker, outcome: counted, probe: probe) }
    }

    /// The shared bucket's token and the shared pause, as `reserve` gives them: when the send
    /// may go (monotonic seconds) and whether it holds a token. A shared pause is also kept in
    /// the session's own state, where the turn reads it.
    func sharedReserve(_ origin: Origin, limits: HostLimits, start: TimeInterval, deadline: TimeInterval)
        -> (due: TimeInterval, hasToken: Bool)? {
        let key = origin.description
        guard let turn = shared?.ask({ $0.reserveTurn(origin: key, limits: limits, within: max(0, deadline - start)) })
        else { return nil }
        if turn.pausedFor > 0 {
            let until = start + turn.pausedFor
            update(origin, now: start) { $0.pausedUntil = max($0.pausedUntil, until) }
        }
        guard let wait = turn.wait else { return (deadline, false) }
        return (start + max(0, wait), true)
    }

    /// Gives a shared token back; `false` when the store did not take it.
    func sharedGiveBack(_ origin: Origin, limits: HostLimits) -> Bool {
        let key = origin.description
        return shared?.tell { $0.returnToken(origin: key, limits: limits) } ?? false
    }

    /// Shares a `Retry-After` pause.
    func sharedPause(_ origin: Origin, seconds: TimeInterval) {
        let key = origin.description
        shared?.tell { $0.pause(origin: key, seconds: seconds) }
    }
}
