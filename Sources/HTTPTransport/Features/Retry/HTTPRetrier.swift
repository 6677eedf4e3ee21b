import Foundation

/// Decides whether a failed send is sent again. Give one to `HTTPTransport(…, retrier:)`;
/// ready-made: `RetryPolicy` (back-off for transient faults) and `HTTPTransportRetrier`
/// (refresh-and-retry, e.g. for expired tokens, with a single refresh for many threads).
public protocol HTTPRetrier: Sendable {
    /// Called on the sending thread after an attempt failed. May block (e.g. to refresh a token).
    func retry(_ context: RetryContext) -> RetryAction
    /// Called on the sending thread once per send, before its first attempt, with the request as
    /// resolved; returns the request every attempt sends (default: unchanged). `RetryPolicy`
    /// adds its idempotency key here and counts the send for its retry budget.
    func prepareFirstAttempt(_ request: RawRequest) -> RawRequest
}

extension HTTPRetrier {
    /// The request unchanged.
    public func prepareFirstAttempt(_ request: RawRequest) -> RawRequest { request }
}

/// What a retrier knows about a failed attempt.
public struct RetryContext: Sendable {
    /// The request as resolved, before interceptors: what a retry re-sends (interceptors run again).
    public let request: RawRequest
    /// The request as the failed attempt sent it (after interceptors).
    public let sentRequest: RawRequest?
    /// Why the attempt failed (status, headers and body included when a response arrived).
    public let error: HTTPTransportError
    /// The number of the failed attempt (1 for the first).
    public let attempt: Int
    /// When the failed attempt started.
    public let attemptStarted: ContinuousClock.Instant
    /// When the first attempt started.
    public let firstAttemptStarted: ContinuousClock.Instant

    /// A context (public for retriers' own tests).
    public init(request: RawRequest, sentRequest: RawRequest?, error: HTTPTransportError, attempt: Int,
                attemptStarted: ContinuousClock.Instant, firstAttemptStarted: ContinuousClock.Instant) {
        self.request = request
        self.sentRequest = sentRequest
        self.error = error
        self.attempt = attempt
        self.attemptStarted = attemptStarted
        self.firstAttemptStarted = firstAttemptStarted
    }
}

/// A retrier's verdict.
public enum RetryAction: Sendable {
    /// Return the failure as it is.
    case doNotRetry
    /// Send `request` again after waiting `delay` seconds.
    case retry(request: RawRequest, delay: TimeInterval)
    /// Return this failure instead (e.g. the token refresh failed).
    case fail(HTTPTransportError)
}
