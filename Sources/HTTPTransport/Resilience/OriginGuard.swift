import Foundation

/// The per-origin step of a session's sends: the circuit breaker and the host limits (rate and
/// `Retry-After` pauses) around every exchange that reaches the network. One per session, shared
/// by every send of it, whatever thread or transport it comes from; nil when neither is configured.
///
/// It wraps the engine call, below the cache: a response the cache serves takes no token and
/// never counts for or against a circuit, while a revalidation, which asks the server, does both.
final class OriginGuard: Sendable {
    let limits: HostLimits?
    let breaker: CircuitBreaker?
    private let clock: ResilienceClock
    private let origins = Locked<[Origin: OriginState]>([:])

    /// What the session knows about one origin.
    struct OriginState: Sendable {
        var bucket: TokenBucket?
        /// Monotonic seconds until which a `Retry-After` holds every send (0: none).
        var pausedUntil: TimeInterval = 0
        var circuit: CircuitState?

        /// Whether the state is the same as a new one's at `now` (so it may be forgotten).
        func isIdle(now: TimeInterval) -> Bool {
            pausedUntil <= now && (circuit?.isIdle ?? true) && (bucket?.isFull(now: now) ?? true)
        }
    }

    /// Origins remembered before idle ones are forgotten (a crawler meets many).
    static let forgetIdleAbove = 1_024

    init?(configuration: Session.Configuration, clock: ResilienceClock = .system) {
        guard configuration.hostLimits != nil || configuration.circuitBreaker != nil else { return nil }
        limits = configuration.hostLimits
        breaker = configuration.circuitBreaker
        self.clock = clock
    }

    /// How many origins the guard remembers.
    var originCount: Int { origins.withLock { $0.count } }

    /// Sends `request` through `network` when the origin's circuit and limits let it, in time.
    func send(_ request: RawRequest, control: TransferControl, telemetry: SendTelemetry,
              network: (RawRequest) -> RawResponse) -> RawResponse {
        let origin = Origin(request.url)
        var request = request
        var admission = admit(origin)
        if limits != nil, !admission.isRefusal {
            if let failure = awaitTurn(origin, &request, control: control, telemetry: telemetry) {
                if admission == .probe { record(.neutral, origin, probe: true) }
                return RawResponse(request: request, error: failure)
            }
            // The circuit may have opened while this send waited; then its token goes back.
            if admission == .send {
                admission = admit(origin)
                if admission.isRefusal { giveBack(origin) }
            }
        }
        if case .refuse(let message) = admission {
            telemetry.circuitRefused(host: origin.host, port: origin.port)
            return RawResponse(request: request, error: HTTPTransportError(
                code: .circuitOpen, message: message, url: request.url.absoluteString))
        }
        let response = network(request)
        if breaker != nil { record(CircuitState.outcome(of: response), origin, probe: admission == .probe) }
        if let limits, limits.pausesOnRetryAfter { pauseIfAsked(by: response, origin) }
        return response
    }

    // MARK: Circuit breaker

    private func admit(_ origin: Origin) -> CircuitState.Admission {
        guard let breaker else { return .send }
        let now = clock.now()
        let date = clock.date()
        return update(origin, now: now) { state in
            if state.circuit == nil { state.circuit = CircuitState(breaker: breaker, origin: origin) }
            return state.circuit?.admit(now: now, date: date) ?? .send
        }
    }

    private func record(_ outcome: CircuitState.Outcome, _ origin: Origin, probe: Bool) {
        let now = clock.now()
        let date = clock.date()
        origins.withLock { origins in
            origins[origin]?.circuit?.record(outcome, probe: probe, now: now, date: date)
        }
    }

    // MARK: Host limits

    /// Waits for the origin's token and the end of its `Retry-After` pause, within the request's
    /// time-out (which then covers only what is left); the error when the send must not go.
    private func awaitTurn(_ origin: Origin, _ request: inout RawRequest, control: TransferControl,
                           telemetry: SendTelemetry) -> HTTPTransportError? {
        let start = clock.now()
        let deadline = start + max(0, request.timeout)
        let turn = reserve(origin, start: start, deadline: deadline)
        while true {
            let now = clock.now()
            let paused = origins.withLock { $0[origin]?.pausedUntil ?? 0 }
            let due = max(turn.tokenDue, paused)
            if due <= now, turn.hasToken { break }
            let reason = paused > turn.tokenDue ? WaitReason.retryAfter : .rateLimit
            let until = !turn.hasToken || due > deadline ? deadline : due
            let cancelled = !clock.wait(max(0, until - now), control.cancellation)
            if cancelled || until == deadline {
                if turn.hasToken { giveBack(origin) }
                return cancelled ? cancelledError(origin, request)
                    : timeoutError(origin, request, waited: clock.now() - start, reason: reason)
            }
            telemetry.originWaited(seconds: clock.now() - now, reason: reason.rawValue)
        }
        let waited = clock.now() - start
        if waited > 0 { request.timeout = max(0.001, request.timeout - waited) }
        return nil
    }

    enum WaitReason: String {
        case rateLimit = "rate_limit"
        case retryAfter = "retry_after"
    }

    /// The origin's next token, reserved for a send that must start by `deadline`: when it is
    /// due, or `hasToken` false when none comes in time. Without a rate, no token is needed:
    /// due at once.
    private func reserve(_ origin: Origin, start: TimeInterval, deadline: TimeInterval)
        -> (tokenDue: TimeInterval, hasToken: Bool) {
        guard let rate = limits?.requestsPerSecond else { return (start, true) }
        let burst = limits?.burst ?? 1
        return update(origin, now: start) { state in
            if state.bucket == nil { state.bucket = TokenBucket(rate: rate, burst: burst, now: start) }
            let from = max(start, state.pausedUntil)
            guard let wait = state.bucket?.reserve(now: from, within: deadline - from) else { return (deadline, false) }
            return (from + wait, true)
        }
    }

    private func giveBack(_ origin: Origin) {
        guard limits?.requestsPerSecond != nil else { return }
        let now = clock.now()
        origins.withLock { $0[origin]?.bucket?.giveBack(now: now) }
    }

    /// A `429` or `503` with a readable `Retry-After` holds every send to the origin until then.
    private func pauseIfAsked(by response: RawResponse, _ origin: Origin) {
        guard let status = response.statusCode?.rawValue, status == 429 || status == 503,
              let header = response.headers["Retry-After"],
              let delay = RetryPolicy.retryAfterDelay(header, now: clock.date()), delay > 0
        else { return }
        let now = clock.now()
        let until = now + min(delay, 86_400)
        update(origin, now: now) { $0.pausedUntil = max($0.pausedUntil, until) }
    }

    /// Runs `body` on the origin's state (a new one the first time) under the lock; past
    /// `forgetIdleAbove` origins, forgets those whose state is the same as a new one's.
    @discardableResult
    private func update<Result: Sendable>(_ origin: Origin, now: TimeInterval,
                                          _ body: (inout OriginState) -> Result) -> Result {
        origins.withLock { origins in
            if origins[origin] == nil, origins.count >= Self.forgetIdleAbove {
                origins = origins.filter { !$0.value.isIdle(now: now) }
            }
            var state = origins[origin] ?? OriginState()
            let result = body(&state)
            origins[origin] = state
            return result
        }
    }

    private func timeoutError(_ origin: Origin, _ request: RawRequest, waited: TimeInterval,
                              reason: WaitReason) -> HTTPTransportError {
        let why = switch reason {
        case .retryAfter: "the origin asked for a pause with Retry-After, which the session's hostLimits keep for every send"
        case .rateLimit: "the session's hostLimits allow \(limits?.requestsPerSecond ?? 0) request(s) a second, burst \(limits?.burst ?? 1)"
        }
        let seconds = (waited * 1000).rounded() / 1000
        return HTTPTransportError(
            code: .timeout,
            message: "The request's time-out ran out after \(seconds) s waiting for its turn to send to \(origin) (\(why)); nothing was sent.",
            url: request.url.absoluteString)
    }

    private func cancelledError(_ origin: Origin, _ request: RawRequest) -> HTTPTransportError {
        HTTPTransportError(code: .cancelled, message: "The send was cancelled while waiting for its turn to send to \(origin); nothing was sent.",
                           url: request.url.absoluteString)
    }
}
