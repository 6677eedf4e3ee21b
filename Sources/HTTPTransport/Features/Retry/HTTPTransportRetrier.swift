import Foundation

/// What `HTTPTransportRetrier` asks: which failures mean "credentials expired", how to renew
/// them, and how to change a request before it is sent again.
public protocol HTTPTransportRetrierDelegate: Sendable {
    /// Attempts in all, the first included (default 2: one retry after a refresh).
    var maxAttempts: Int { get }
    /// Whether this failure is cured by `refresh()` (default: a 401 status).
    func shouldRetry(statusCode: HTTPStatusCode?, headers: HTTPHeaders, bodyJSON: Any?, error: HTTPTransportError) -> Bool
    /// Renews the credentials (e.g. fetches a new token and stores it where a request
    /// interceptor reads it). Runs on one thread while the others wait; throwing fails them all.
    func refresh() throws
    /// The request to send again (default: unchanged; request interceptors run again anyway).
    func adapt(request: RawRequest) -> RawRequest
}

extension HTTPTransportRetrierDelegate {
    /// One retry after a refresh.
    public var maxAttempts: Int { 2 }

    /// Retries a 401 (Unauthorized).
    public func shouldRetry(statusCode: HTTPStatusCode?, headers: HTTPHeaders, bodyJSON: Any?,
                            error: HTTPTransportError) -> Bool {
        statusCode == .unauthorized
    }

    /// The request unchanged.
    public func adapt(request: RawRequest) -> RawRequest { request }
}

/// Refresh-and-retry (e.g. for expired tokens) with a single refresh for many threads: when
/// several sends fail at once, the delegate's `refresh()` runs once and every waiting send is
/// retried after it, or fails with its error. A send whose attempt started before the last
/// refresh finished is retried (or failed) on that refresh's outcome, without another one.
///
/// ```swift
/// struct TokenRefresher: HTTPTransportRetrierDelegate {
///     let store: TokenStore
///     func refresh() throws { try store.fetchNewToken() }
/// }
/// let transport = HTTPTransport(requestInterceptors: [BearerInterceptor(store: store)],
///                               retrier: HTTPTransportRetrier(delegate: TokenRefresher(store: store)))
/// ```
public final class HTTPTransportRetrier: HTTPRetrier, @unchecked Sendable {
    // @unchecked: every mutable field is read and written under `condition`.

    /// The delegate deciding and refreshing.
    public let delegate: any HTTPTransportRetrierDelegate

    private enum Outcome {
        case refreshed
        case failed(any Error & Sendable)
    }

    private let condition = NSCondition()
    private var isRefreshing = false
    private var refresher: pthread_t?
    private var generation = 0
    private var lastOutcome: (finished: ContinuousClock.Instant, outcome: Outcome)?
    private var refreshes = 0

    /// A retrier asking `delegate`.
    public init(delegate: any HTTPTransportRetrierDelegate) {
        self.delegate = delegate
    }

    /// How many times `refresh()` has run.
    public var refreshCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return refreshes
    }

    public func retry(_ context: RetryContext) -> RetryAction {
        let error = context.error
        // A failure another origin answered (after a redirect) says nothing about our
        // credentials: never refresh them for it, nor send them again because of it.
        if let sent = context.sentRequest, !RedirectRule.sameOrigin(sent.url, context.request.url) {
            return .doNotRetry
        }
        guard context.attempt < delegate.maxAttempts,
              delegate.shouldRetry(statusCode: error.httpStatusCode, headers: error.responseHeaders,
                                   bodyJSON: error.responseBodyJSON, error: error),
              let outcome = freshCredentials(attemptStarted: context.attemptStarted)
        else { return .doNotRetry }
        switch outcome {
        case .refreshed:
            return .retry(request: delegate.adapt(request: context.request), delay: 0)
        case .failed(let refreshError):
            var failure = HTTPTransportError(
                code: .other, message: "Refreshing credentials failed: \(refreshError)", url: error.url,
                httpStatusCode: error.httpStatusCode, responseHeaders: error.responseHeaders,
                responseBodyData: error.responseBodyData, underlyingError: refreshError)
            failure.responseBodyErrorCode = error.responseBodyErrorCode
            failure.responseBodyErrorMessage = error.responseBodyErrorMessage
            return .fail(failure)
        }
    }

    /// Waits for, or runs, the refresh that serves an attempt started at `attemptStarted`;
    /// `nil` when called from within `refresh()` itself (its own requests are not retried).
    private func freshCredentials(attemptStarted: ContinuousClock.Instant) -> Outcome? {
        condition.lock()
        while true {
            if isRefreshing, let refresher, pthread_equal(refresher, pthread_self()) != 0 {
                condition.unlock()
                return nil
            }
            // A refresh that finished after this attempt started already serves it.
            if let last = lastOutcome, attemptStarted < last.finished {
                condition.unlock()
                return last.outcome
            }
            guard isRefreshing else { break }
            let awaited = generation
            while isRefreshing, generation == awaited { condition.wait() }
        }
        isRefreshing = true
        refresher = pthread_self()
        condition.unlock()

        let outcome: Outcome
        do {
            try delegate.refresh()
            outcome = .refreshed
        } catch let error as HTTPTransportError {
            outcome = .failed(error)
        } catch {
            outcome = .failed(error)
        }

        condition.lock()
        lastOutcome = (ContinuousClock.now, outcome)
        generation += 1
        refreshes += 1
        isRefreshing = false
        refresher = nil
        condition.broadcast()
        condition.unlock()
        return outcome
    }
}
