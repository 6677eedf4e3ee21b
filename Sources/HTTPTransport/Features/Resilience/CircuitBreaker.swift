import Foundation

/// Stops sending to an origin (scheme, host and port) that keeps failing, so a dependency that is
/// down gets time to recover instead of a queue of doomed requests. Set it as
/// `Session.Configuration.circuitBreaker`.
///
/// After `failureThreshold` consecutive failures of one origin (no connection, name resolution,
/// time-out, TLS failure, bad response, or status 500, 502, 503 or 504), sends to it fail at once
/// with `.circuitOpen`, nothing sent, for `openDuration` seconds. Then exactly one send goes
/// through as a probe (the others still fail with `.circuitOpen`): its success closes the
/// circuit, its failure opens it again. Any success resets the count of failures.
///
/// ```swift
/// var configuration = Session.Configuration()
/// configuration.circuitBreaker = CircuitBreaker(failureThreshold: 5, openDuration: 30)
/// ```
public struct CircuitBreaker: Sendable, Hashable {
    /// Consecutive failures that open the circuit (at least 1).
    public var failureThreshold: Int
    /// Seconds the circuit stays open before one probe may go.
    public var openDuration: TimeInterval

    /// A breaker opening after `failureThreshold` consecutive failures for `openDuration` seconds.
    public init(failureThreshold: Int = 5, openDuration: TimeInterval = 30) {
        self.failureThreshold = max(1, failureThreshold)
        self.openDuration = openDuration.isFinite ? max(0, openDuration) : 30
    }
}
