import Foundation

/// How fast a session may send to each origin (scheme, host and port), and whether a server's
/// `Retry-After` holds every send to it. Set it as `Session.Configuration.hostLimits`.
///
/// Every send of the session that reaches the network (a cache hit takes no token) first takes a
/// token from its origin's bucket: `requestsPerSecond` tokens a second, at most `burst` saved
/// up (the bucket starts full). A send without a token waits for one; when its time-out ends
/// first it fails with `.timeout` and nothing is sent. With `pausesOnRetryAfter`, a `429` or
/// `503` response carrying `Retry-After` (seconds or an HTTP date) holds every send of the
/// session to that origin until then, not only the one that received it.
///
/// ```swift
/// var configuration = Session.Configuration()
/// configuration.hostLimits = HostLimits(requestsPerSecond: 20, burst: 5)
/// ```
public struct HostLimits: Sendable, Hashable {
    /// Sends a second to one origin (`nil`: no rate, only `Retry-After` pauses).
    public var requestsPerSecond: Double?
    /// Sends that may go at once after a quiet time (at least 1).
    public var burst: Int
    /// Whether a `429`/`503` with `Retry-After` holds every send to its origin until then.
    public var pausesOnRetryAfter: Bool

    /// Limits per origin.
    /// - Parameters:
    ///   - requestsPerSecond: Sends a second to one origin (`nil`: unlimited).
    ///   - burst: Sends that may go at once (at least 1); the bucket starts full.
    ///   - pausesOnRetryAfter: Whether `Retry-After` on a `429`/`503` pauses the whole origin.
    public init(requestsPerSecond: Double? = nil, burst: Int = 1, pausesOnRetryAfter: Bool = true) {
        // Zero, negative or infinite rates mean no rate, as nil does.
        self.requestsPerSecond = requestsPerSecond.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        self.burst = max(1, burst)
        self.pausesOnRetryAfter = pausesOnRetryAfter
    }
}
