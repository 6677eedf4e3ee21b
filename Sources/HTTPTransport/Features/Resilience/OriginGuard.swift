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
    /// Where the buckets, pauses and circuits are shared with other sessions, or nil.
    let shared: (any OriginStateSharing)?
    let clock: ResilienceClock
    let origins = Locked(OriginTable())

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

    init?(configuration: Session.Configuration, shared: (any OriginStateSharing)? = nil, clock: ResilienceClock = .system) {
        guard configuration.hostLimits != nil || configuration.circuitBreaker != nil else { return nil }
        limits = configuration.hostLimits
        breaker = configuration.circuitBreaker
        self.shared = shared
        self.clock = clock
    }

    /// How many origins the guard remembers.
    var originCount: Int { origins.withLock { $0.count } }

    /// Origin states looked at by the table's scans so far (tests).
    var originsScanned: Int { origins.withLock { $0.scanned } }

    /// Where one send is in the guard: waiting for its turn (why), or sent.
    enum Progress {
        case waiting(Turn, WaitReason)
        case sent(Pass)
        case done
    }

    /// A send arrives: refused (an open circuit), its turn to wait for, or sent at once.
    func start(_ request: RawRequest, telemetry: SendEvents) -> (exchange: Progress, action: HTTPSendAction) {
        let pass = Pass(request, admit(Origin(request.url), lease: request.timeout))
        guard pass.needsTurn(limits) else { return enter(pass, telemetry: telemetry) }
        return take(beginTurn(pass), telemetry: telemetry)
    }

    /// The wait for the turn ended (`completed` false: the send was cancelled).
    func resume(_ progress: inout Progress, afterWaiting completed: Bool, telemetry: SendEvents) -> HTTPSendAction {
        guard case .waiting(var turn, let reason) = progress else { return .fail(Self.outOfOrder) }
        turn.waited(completed, reason: reason, self, telemetry)
        let next = take(turn, telemetry: telemetry)
        progress = next.exchange
        return next.action
    }

    /// The network answered: what it tells the circuit and the limits.
    func resume(_ progress: inout Progress, with response: RawResponse) -> HTTPSendAction {
        guard case .sent(let pass) = progress else { return .answer(response) }
        progress = .done
        return .answer(leave(pass, response))
    }

    /// The turn's next wait, or the send once it may go.
    private func take(_ turn: Turn, telemetry: SendEvents) -> (exchange: Progress, action: HTTPSendAction) {
        var turn = turn
        if case .wait(let seconds, let reason) = turn.step(self) {
            return (.waiting(turn, reason), .wait(seconds: seconds, on: clock))
        }
        return enter(turn.pass, telemetry: telemetry)
    }

    private func enter(_ pass: Pass, telemetry: SendEvents) -> (exchange: Progress, action: HTTPSendAction) {
        var pass = pass
        if let refusal = enter(&pass, telemetry: telemetry) { return (.done, .answer(refusal)) }
        return (.sent(pass), .forward(pass.request))
    }

    private static let outOfOrder = HTTPTransportError(code: .other, message: "The per-origin step was resumed out of order.")

    /// One send through the guard: its origin, its request (its time-out shortened by a wait)
    /// and what the circuit said.
    struct Pass {
        let origin: Origin
        var request: RawRequest
        var admission: CircuitState.Admission
        /// Whether the shared store gave the admission (its outcome then goes there).
        var sharedCircuit: Bool
        /// Whether the shared store gave the token (it then goes back there).
        var sharedToken = false
        /// Whether its turn made it wait (the circuit may have opened meanwhile).
        var waited = false
        /// Why it must not be sent, when its turn did not come.
        var failure: HTTPTransportError?

        init(_ request: RawRequest, _ admission: (CircuitState.Admission, shared: Bool)) {
            origin = Origin(request.url)
            self.request = request
            (self.admission, sharedCircuit) = admission
        }

        func needsTurn(_ limits: HostLimits?) -> Bool { limits != nil && !admission.isRefusal }
    }

    /// After the turn: the response that ends the send here (a failed turn, an open circuit),
    /// or nil to send.
    private func enter(_ pass: inout Pass, telemetry: SendEvents) -> RawResponse? {
        if let failure = pass.failure {
            if pass.admission == .probe { record(.neutral, pass) }
            return RawResponse(request: pass.request, error: failure)
        }
        // The circuit may have opened while this send waited; then its token goes back. (A
        // shared circuit is asked again only after a wait: each question is a round trip.)
        if limits != nil, pass.admission == .send, pass.waited || !pass.sharedCircuit {
            (pass.admission, pass.sharedCircuit) = admit(pass.origin, lease: pass.request.timeout)
            if pass.admission.isRefusal { giveBack(pass) }
        }
        guard case .refuse(let message) = pass.admission else { return nil }
        telemetry.circuitRefused(host: pass.origin.host, port: pass.origin.port)
        return RawResponse(request: pass.request, error: HTTPTransportError(
            code: .circuitOpen, message: message, url: pass.request.url.absoluteString))
    }

    /// What the response tells the circuit and the limits.
    private func leave(_ pass: Pass, _ response: RawResponse) -> RawResponse {
        if breaker != nil { record(CircuitState.outcome(of: response), pass) }
        if let limits, limits.pausesOnRetryAfter { pauseIfAsked(by: response, pass.origin) }
        return response
    }

    // MARK: Circuit breaker

    /// What the circuit says (the shared one's when there is one and it answers), and whether
    /// the shared store said it.
    private func admit(_ origin: Origin, lease: TimeInterval) -> (CircuitState.Admission, shared: Bool) {
        guard let breaker else { return (.send, false) }
        if let admission = sharedAdmission(origin, breaker: breaker, lease: lease) { return (admission, true) }
        return (localAdmission(origin, breaker: breaker), false)
    }

    private func localAdmission(_ origin: Origin, breaker: CircuitBreaker) -> CircuitState.Admission {
        let now = clock.now()
        let date = clock.date()
        return update(origin, now: now) { state in
            if state.circuit == nil { state.circuit = CircuitState(breaker: breaker, origin: origin) }
            return state.circuit?.admit(now: now, date: date) ?? .send
        }
    }

    private func record(_ outcome: CircuitState.Outcome, _ pass: Pass) {
        let probe = pass.admission == .probe
        if pass.sharedCircuit, let breaker, sharedRecord(outcome, pass.origin, breaker: breaker, probe: probe) { return }
        recordLocally(outcome, pass.origin, probe: probe && !pass.sharedCircuit)
    }

    private func recordLocally(_ outcome: CircuitState.Outcome, _ origin: Origin, probe: Bool) {
        let now = clock.now()
        let date = clock.date()
        origins.withLock { origins in
            origins[origin]?.circuit?.record(outcome, probe: probe, now: now, date: date)
        }
    }

    // MARK: Host limits

    /// Waiting for the origin's token and the end of its `Retry-After` pause, within the
    /// request's time-out (which then covers only what is left): the decisions, the waiting
    /// itself being the caller's (a thread's sleep or a task's).
    struct Turn {
        var pass: Pass
        let start: TimeInterval
        let deadline: TimeInterval
        let tokenDue: TimeInterval
        let hasToken: Bool
        private var lastWaitStarted: TimeInterval = 0
        private var waitEndsAtDeadline = false
        private var done = false

        init(pass: Pass, start: TimeInterval, deadline: TimeInterval, reserved: (due: TimeInterval, hasToken: Bool)) {
            self.pass = pass
            self.start = start
            self.deadline = deadline
            tokenDue = reserved.due
            hasToken = reserved.hasToken
        }

        enum Step { case go, wait(seconds: TimeInterval, reason: WaitReason) }

        /// Go, or how long to wait (then call `waited`).
        mutating func step(_ guardian: OriginGuard) -> Step {
            guard !done, pass.failure == nil else { return .go }
            let now = guardian.clock.now()
            let paused = guardian.origins.withLock { $0[pass.origin]?.pausedUntil ?? 0 }
            let due = max(tokenDue, paused)
            if due <= now, hasToken {
                done = true
                let waited = now - start
                if waited > 0 { pass.request.timeout = max(0.001, pass.request.timeout - waited) }
                return .go
            }
            let until = !hasToken || due > deadline ? deadline : due
            lastWaitStarted = now
            waitEndsAtDeadline = until == deadline
            return .wait(seconds: max(0, until - now), reason: paused > tokenDue ? .retryAfter : .rateLimit)
        }

        /// A wait ended: `completed` false when the send was cancelled meanwhile.
        mutating func waited(_ completed: Bool, reason: WaitReason, _ guardian: OriginGuard, _ telemetry: SendEvents) {
            let now = guardian.clock.now()
            if !completed || waitEndsAtDeadline {
                if hasToken { guardian.giveBack(pass) }
                pass.failure = !completed ? guardian.cancelledError(pass.origin, pass.request)
                    : guardian.timeoutError(pass.origin, pass.request, waited: now - start, reason: reason)
                return
            }
            pass.waited = true
            telemetry.originWaited(seconds: now - lastWaitStarted, reason: reason.rawValue)
        }
    }

    private func beginTurn(_ pass: Pass) -> Turn {
        let start = clock.now()
        let deadline = start + max(0, pass.request.timeout)
        var pass = pass
        let reserved: (due: TimeInterval, hasToken: Bool)
        if let limits, let turn = sharedReserve(pass.origin, limits: limits, start: start, deadline: deadline) {
            reserved = turn
            pass.sharedToken = limits.requestsPerSecond != nil
        } else {
            reserved = reserve(pass.origin, start: start, deadline: deadline)
        }
        return Turn(pass: pass, start: start, deadline: deadline, reserved: reserved)
    }

    enum WaitReason: String {
        case rateLimit = "rate_limit"
        case retryAfter = "retry_after"
    }

    /// The origin's next token, reserved for a send that must start by `deadline`: when it is
    /// due, or `hasToken` false when none comes in time. Without a rate, no token is needed:
    /// due at once.
    private func reserve(_ origin: Origin, start: TimeInterval, deadline: TimeInterval)
        -> (due: TimeInterval, hasToken: Bool) {
        guard let rate = limits?.requestsPerSecond else { return (start, true) }
        let burst = limits?.burst ?? 1
        return update(origin, now: start) { state in
            if state.bucket == nil { state.bucket = TokenBucket(rate: rate, burst: burst, now: start) }
            let from = max(start, state.pausedUntil)
            guard let wait = state.bucket?.reserve(now: from, within: deadline - from) else { return (deadline, false) }
            return (from + wait, true)
        }
    }

    fileprivate func giveBack(_ pass: Pass) {
        guard let limits, limits.requestsPerSecond != nil else { return }
        if pass.sharedToken, sharedGiveBack(pass.origin, limits: limits) { return }
        let now = clock.now()
        origins.withLock { $0[pass.origin]?.bucket?.giveBack(now: now) }
    }

    /// A `429` or `503` with a readable `Retry-After` holds every send to the origin until then.
    private func pauseIfAsked(by response: RawResponse, _ origin: Origin) {
        guard let status = response.statusCode?.rawValue, status == 429 || status == 503,
              let header = response.headers["Retry-After"],
              let delay = RetryAfter.delay(header, now: clock.date()), delay > 0
        else { return }
        let now = clock.now()
        let until = now + min(delay, 86_400)
        update(origin, now: now) { $0.pausedUntil = max($0.pausedUntil, until) }
        sharedPause(origin, seconds: min(delay, 86_400))
    }

    /// Runs `body` on the origin's state (a new one the first time) under the lock; a new
    /// origin may first make the table forget idle ones (`OriginTable`).
    @discardableResult
    func update<Result: Sendable>(_ origin: Origin, now: TimeInterval,
                                          _ body: (inout OriginState) -> Result) -> Result {
        origins.withLock { origins in
            if origins[origin] == nil { origins.makeRoom(now: now) }
            var state = origins[origin] ?? OriginState()
            let result = body(&state)
            origins[origin] = state
            return result
        }
    }

    fileprivate func timeoutError(_ origin: Origin, _ request: RawRequest, waited: TimeInterval,
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

    fileprivate func cancelledError(_ origin: Origin, _ request: RawRequest) -> HTTPTransportError {
        HTTPTransportError(code: .cancelled, message: "The send was cancelled while waiting for its turn to send to \(origin); nothing was sent.",
                           url: request.url.absoluteString)
    }
}

extension Session {
    /// The per-origin rules (host limits, circuit breaker); nil when neither is configured.
    var originGuard: OriginGuard? { features.originGuard }
}
