import Foundation

/// The shared store answers the origin guard's questions (host limits, `Retry-After` pauses,
/// circuits): Fleet builds on Resilience, never the reverse.
extension SharedStateLink: OriginStateSharing {
    func admission(_ origin: Origin, breaker: CircuitBreaker, lease: TimeInterval) -> CircuitState.Admission? {
        let key = origin.description
        guard let answer = ask({ $0.admit(origin: key, breaker: breaker, probeLease: lease) }) else { return nil }
        switch answer {
        case .send: return .send
        case .probe: return .probe
        case .open(let since, let until, let reason):
            return .refuse(CircuitState.openRefusal(origin, since: since, until: until, after: reason))
        case .probing(let since):
            return .refuse(CircuitState.probeRefusal(origin, since: since))
        }
    }

    func record(_ outcome: CircuitState.Outcome, _ origin: Origin, breaker: CircuitBreaker, probe: Bool) -> Bool {
        let key = origin.description
        let counted: SharedCircuitOutcome = switch outcome {
        case .success: .success
        case .failure(let reason): .failure(reason: reason)
        case .neutral: .neutral
        }
        return tell { $0.record(origin: key, breaker: breaker, outcome: counted, probe: probe) }
    }

    func reserveTurn(_ origin: Origin, limits: HostLimits, within seconds: TimeInterval)
        -> (wait: TimeInterval?, pausedFor: TimeInterval)? {
        let key = origin.description
        return ask { $0.reserveTurn(origin: key, limits: limits, within: seconds) }.map { ($0.wait, $0.pausedFor) }
    }

    func returnToken(_ origin: Origin, limits: HostLimits) -> Bool {
        let key = origin.description
        return tell { $0.returnToken(origin: key, limits: limits) }
    }

    func pause(_ origin: Origin, seconds: TimeInterval) {
        let key = origin.description
        tell { $0.pause(origin: key, seconds: seconds) }
    }
}

/// The shared store counts a `RetryPolicy`'s budget: Fleet builds on Retry, never the reverse.
extension SharedStateLink: RetryBudgetSharing {
    func recordFirstAttempt(budget: RetryBudget) -> Bool {
        tell { $0.recordFirstAttempt(budget: budget) }
    }

    func takeRetry(budget: RetryBudget) -> RetryBudgetLedger.Verdict? {
        guard let verdict = ask({ $0.takeRetry(budget: budget) }) else { return nil }
        return RetryBudgetLedger.Verdict(allowed: verdict.allowed, retries: verdict.retries,
                                         firstAttempts: verdict.firstAttempts,
                                         limit: budget.limit(firstAttempts: verdict.firstAttempts))
    }
}
