import Foundation

/// Sends a failed request again after transient faults (urllib3's `Retry`, as an immutable
/// value): retryable statuses and error codes, exponential back-off with full jitter,
/// `Retry-After`, an attempt limit and a total-time budget.
///
/// Methods that are not idempotent (`POST`, `PATCH`, `CONNECT`) are not sent again unless
/// `retriesNonIdempotentRequests` is `true`; the one exception is `.cannotConnect`, where the
/// request never left this machine. A `Retry-After` longer than `maxDelay`, or any wait that
/// would end past `maxTotalTime`, returns the failure at once instead of sleeping.
///
/// Two settings help a daemon under load (see "Resilience"): `budget` bounds the retries of
/// every send using the policy, and `idempotencyKeyHeader` gives a `POST` or `PATCH` a key, the
/// same on every attempt, so that it may be retried too.
///
/// ```swift
/// let transport = HTTPTransport(retrier: RetryPolicy(maxAttempts: 4, onRetry: { context, delay in
///     print("attempt \(context.attempt) failed (\(context.error.code)); retrying in \(delay) s")
/// }))
/// ```
public struct RetryPolicy: HTTPRetrier {
    /// Statuses retried by default: 408, 429, 500, 502, 503, 504.
    public static let defaultRetryableStatusCodes: Set<HTTPStatusCode> = [
        .requestTimeout, .tooManyRequests, .internalServerError, .badGateway, .serviceUnavailable, .gatewayTimeout,
    ]
    /// Failures retried by default: no connection, time-out, a cut-off or malformed response.
    public static let defaultRetryableErrorCodes: Set<HTTPTransportError.Code> = [.cannotConnect, .timeout, .badResponse]

    /// Attempts in all, the first included (1 never retries).
    public let maxAttempts: Int
    /// Statuses (of `.httpStatus` failures) that are retried.
    public let retryableStatusCodes: Set<HTTPStatusCode>
    /// Failure kinds (without a retryable status) that are retried.
    public let retryableErrorCodes: Set<HTTPTransportError.Code>
    /// `true` also retries `POST`, `PATCH` and `CONNECT`.
    public let retriesNonIdempotentRequests: Bool
    /// The back-off before the first retry; it doubles after each attempt.
    public let baseDelay: TimeInterval
    /// The longest back-off, and the longest `Retry-After` waited for.
    public let maxDelay: TimeInterval
    /// Seconds from the first attempt's start after which no retry starts.
    public let maxTotalTime: TimeInterval
    /// Whether a `Retry-After` response header sets the delay.
    public let honorsRetryAfter: Bool
    /// Picks the jittered delay from a range (default: uniformly at random).
    public let jitter: @Sendable (ClosedRange<Double>) -> Double
    /// Called before each retry with the failed attempt's context and the delay chosen.
    public let onRetry: (@Sendable (RetryContext, TimeInterval) -> Void)?
    /// The current date, for `Retry-After` dates.
    public let now: @Sendable () -> Date
    /// Bounds the retries of all the sends that use this policy (and its copies); nil: no bound.
    public let budget: RetryBudget?
    /// The header that carries an idempotency key on `POST` and `PATCH` requests (nil: none).
    public let idempotencyKeyHeader: String?
    /// The counts behind `budget`, shared by the policy's copies.
    let budgetLedger: RetryBudgetLedger?
    /// The session's shared store, where the budget counts when it answers (set by `RetryStep`
    /// for the sends of a session with `sharedState`).
    var sharedBudget: (any RetryBudgetSharing)?

    /// A policy.
    /// - Parameters:
    ///   - maxAttempts: Attempts in all, the first included.
    ///   - retryableStatusCodes: Statuses retried.
    ///   - retryableErrorCodes: Failure kinds retried.
    ///   - retriesNonIdempotentRequests: `true` also retries `POST`, `PATCH` and `CONNECT`.
    ///   - baseDelay: The back-off before the first retry, doubled after each attempt.
    ///   - maxDelay: The longest back-off or `Retry-After` waited for.
    ///   - maxTotalTime: Seconds from the first attempt's start after which no retry starts.
    ///   - honorsRetryAfter: Whether `Retry-After` sets the delay.
    ///   - jitter: Picks the delay from `0...backoff` (inject a fixed one in tests).
    ///   - onRetry: Called before each retry with the context and the delay.
    ///   - now: The current date, for `Retry-After` dates.
    ///   - budget: Bounds retries across every send using this policy (see `RetryBudget`).
    ///   - idempotencyKeyHeader: A header (e.g. `Idempotency-Key`) given a fresh UUID on a `POST` or
    ///     `PATCH` that lacks it, the same on every retry; such a request is retried like a `PUT`.
    public init(
        maxAttempts: Int = 3,
        retryableStatusCodes: Set<HTTPStatusCode> = RetryPolicy.defaultRetryableStatusCodes,
        retryableErrorCodes: Set<HTTPTransportError.Code> = RetryPolicy.defaultRetryableErrorCodes,
        retriesNonIdempotentRequests: Bool = false,
        baseDelay: TimeInterval = 0.2,
        maxDelay: TimeInterval = 10,
        maxTotalTime: TimeInterval = 60,
        honorsRetryAfter: Bool = true,
        jitter: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) },
        onRetry: (@Sendable (RetryContext, TimeInterval) -> Void)? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        budget: RetryBudget? = nil,
        idempotencyKeyHeader: String? = nil
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableErrorCodes = retryableErrorCodes
        self.retriesNonIdempotentRequests = retriesNonIdempotentRequests
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
        self.maxTotalTime = maxTotalTime
        self.honorsRetryAfter = honorsRetryAfter
        self.jitter = jitter
        self.onRetry = onRetry
        self.now = now
        self.budget = budget
        self.idempotencyKeyHeader = idempotencyKeyHeader.flatMap { $0.isEmpty ? nil : $0 }
        budgetLedger = budget.map { RetryBudgetLedger(budget: $0) }
    }

    public func retry(_ context: RetryContext) -> RetryAction {
        guard let delay = delay(for: context) else { return .doNotRetry }
        if let refusal = budgetRefusal(context) { return .fail(refusal) }
        onRetry?(context, delay)
        return .retry(request: context.request, delay: delay)
    }

    /// The wait before sending again, or `nil` when the failure is returned as it is.
    /// `elapsed` is the time since the first attempt started (measured now when `nil`).
    public func delay(for context: RetryContext, elapsed: TimeInterval? = nil) -> TimeInterval? {
        guard isRetryable(context) else { return nil }
        let wait: TimeInterval
        if honorsRetryAfter, let header = context.error.responseHeaders["Retry-After"],
           let retryAfter = Self.retryAfterDelay(header, now: now()) {
            // The server said when; sooner is pointless, much later is not worth blocking for.
            guard retryAfter <= maxDelay else { return nil }
            wait = retryAfter
        } else {
            wait = jitter(0...backoff(afterAttempt: context.attempt))
        }
        let spent = elapsed ?? Self.seconds(ContinuousClock.now - context.firstAttemptStarted)
        guard spent + wait < maxTotalTime else { return nil }
        return max(0, wait)
    }

    /// Whether the failure of `context` may be sent again, before timing is considered:
    /// attempts left, a retryable status or error code, and a method that may be repeated.
    public func isRetryable(_ context: RetryContext) -> Bool {
        guard context.attempt < maxAttempts else { return false }
        let error = context.error
        let kindIsRetryable: Bool
        if error.code == .httpStatus, let status = error.httpStatusCode {
            kindIsRetryable = retryableStatusCodes.contains(status)
        } else {
            kindIsRetryable = retryableErrorCodes.contains(error.code)
        }
        guard kindIsRetryable else { return false }
        // What a retry sends is `context.request` (a redirect may have changed the last hop's method).
        let method = context.request.method
        return method.isIdempotent || retriesNonIdempotentRequests || error.code == .cannotConnect
            || carriesIdempotencyKey(context)
    }

    /// The back-off cap after failed attempt number `attempt` (1 for the first):
    /// `baseDelay × 2^(attempt-1)`, at most `maxDelay`. The delay is jittered within `0...cap`.
    public func backoff(afterAttempt attempt: Int) -> TimeInterval {
        let exponent = Double(max(0, min(attempt - 1, 62)))
        return min(maxDelay, baseDelay * pow(2, exponent))
    }

    /// Seconds to wait according to a `Retry-After` value: delta-seconds or an HTTP-date
    /// (IMF-fixdate, RFC 850 or asctime), never negative; `nil` when it cannot be read.
    public static func retryAfterDelay(_ value: String, now: Date = Date()) -> TimeInterval? {
        RetryAfter.delay(value, now: now)
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let parts = duration.components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
