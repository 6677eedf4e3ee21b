import Foundation

/// Where the per-origin rules of many sessions, in one process or many, keep what they share:
/// the token buckets of `HostLimits`, `Retry-After` pauses, `CircuitBreaker` states with their
/// consecutive-failure counts (one probe for every session), and `RetryBudget` counts. Set one
/// as `Session.Configuration.sharedState`; `RedisSharedState` (module `HTTPTransportRedis`)
/// keeps them in Redis.
///
/// Every method is one decision, taken atomically by the store for all its users. A method
/// answers `nil` (or `false`) when the store could not answer in time: the session then
/// decides with its own state, and reports the outage once. A store must never block longer
/// than its own time-out and should answer at once while it knows it is unreachable.
///
/// Origins are named `scheme://host:port` (lower case, the scheme's default port filled in).
/// Times are seconds from the moment of the call; the store keeps its own clock, so that
/// machines whose clocks differ agree.
public protocol SharedOriginState: AnyObject, Sendable {
    /// Takes the origin's next token (or, without a rate, only reads its pause) for a send that
    /// may wait `seconds`: when it may go, or `nil` when the store did not answer.
    func reserveTurn(origin: String, limits: HostLimits, within seconds: TimeInterval) -> SharedTurn?
    /// Gives back a token reserved by `reserveTurn` that was not used.
    func returnToken(origin: String, limits: HostLimits) -> Bool
    /// Holds every send to the origin for `seconds` (a `Retry-After`); a longer pause stays.
    func pause(origin: String, seconds: TimeInterval) -> Bool
    /// Whether a send may go to the origin as its circuit stands. A `.probe` answer is given to
    /// one caller until it records its outcome or `probeLease` seconds pass.
    func admit(origin: String, breaker: CircuitBreaker, probeLease: TimeInterval) -> SharedCircuitAdmission?
    /// Counts an exchange's outcome for the origin's circuit (`probe`: the send was its probe).
    func record(origin: String, breaker: CircuitBreaker, outcome: SharedCircuitOutcome, probe: Bool) -> Bool
    /// Counts a send's first attempt for the retry budget.
    func recordFirstAttempt(budget: RetryBudget) -> Bool
    /// Takes one retry from the budget when there is one left.
    func takeRetry(budget: RetryBudget) -> SharedRetryVerdict?
}

/// When a send may go, as a `SharedOriginState` reserved it.
public struct SharedTurn: Sendable, Hashable {
    /// Seconds until the reserved token is due (`nil`: none comes within the time allowed,
    /// and nothing was taken).
    public var wait: TimeInterval?
    /// Seconds the origin's `Retry-After` pause still holds every send (0: none).
    public var pausedFor: TimeInterval

    /// A turn.
    public init(wait: TimeInterval?, pausedFor: TimeInterval) {
        self.wait = wait
        self.pausedFor = pausedFor
    }
}

/// What an origin's shared circuit lets a send do.
public enum SharedCircuitAdmission: Sendable, Hashable {
    /// Send: the circuit is closed.
    case send
    /// Send as the one probe of an open circuit whose open time is over.
    case probe
    /// Do not send: the circuit opened at `since` (after `reason`) and stays open until `until`.
    case open(since: Date, until: Date, reason: String)
    /// Do not send: another send, started at `since`, is the circuit's probe.
    case probing(since: Date)
}

/// How an exchange counts for an origin's circuit.
public enum SharedCircuitOutcome: Sendable, Hashable {
    /// The origin answered.
    case success
    /// The origin failed (the reason is kept for the refusals' messages).
    case failure(reason: String)
    /// Says nothing about the origin (a cancelled send); a probe's slot is freed.
    case neutral
}

/// What a shared `RetryBudget` said about one retry.
public struct SharedRetryVerdict: Sendable, Hashable {
    /// Whether the retry may go (it was then counted).
    public var allowed: Bool
    /// Retries counted in the budget's window before this one.
    public var retries: Int
    /// First attempts counted in the window.
    public var firstAttempts: Int

    /// A verdict.
    public init(allowed: Bool, retries: Int, firstAttempts: Int) {
        self.allowed = allowed
        self.retries = retries
        self.firstAttempts = firstAttempts
    }
}
