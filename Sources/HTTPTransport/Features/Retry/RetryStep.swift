import Foundation

/// Repeats a send's attempts while its retrier asks for it. Each attempt is the rest of the
/// chain again (every hop, every interceptor), with its own time-out; the retrier's own limits
/// bound the attempts and their delays. A wait between attempts ends at once when the send is
/// cancelled; an async send's wait holds no thread.
struct RetryStep: SendStep {
    let retrier: any HTTPRetrier
    /// The session's shared store, where the retry budget counts (nil: the retrier's own).
    let shared: (any RetryBudgetSharing)?

    func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Attempts, action: HTTPSendAction) {
        var attempts = Attempts(retrier: retrier, resolved: request, shared: shared)
        attempts.begin()
        return (attempts, .forward(attempts.request))
    }

    func resume(_ attempts: inout Attempts, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
        switch attempts.decide(after: response) {
        case .finish(let response): .answer(response)
        case .retry(let seconds): .wait(seconds: seconds, on: nil)
        }
    }

    func resume(_ attempts: inout Attempts, afterWaiting completed: Bool, context: HTTPSendContext) -> HTTPSendAction {
        if let failure = attempts.waited(completed) { return .answer(failure) }
        attempts.begin()
        return .forward(attempts.request)
    }

    /// The retry state of one send: which attempt, when it and the first one started, and the
    /// request the next attempt sends.
    struct Attempts {
        let retrier: any HTTPRetrier
        private(set) var request: RawRequest
        private var number = 0
        private let firstStart = ContinuousClock.now
        private var attemptStart = ContinuousClock.now
        private var next: RawRequest?
        private var lastError: HTTPTransportError?

        init(retrier: any HTTPRetrier, resolved: RawRequest, shared: (any RetryBudgetSharing)?) {
            self.retrier = RetryPolicy.countingBudget(of: retrier, in: shared)
            request = self.retrier.prepareFirstAttempt(resolved)
        }

        enum Decision {
            case finish(RawResponse)
            /// Wait this many seconds (at most five minutes), then attempt `request` again.
            case retry(seconds: TimeInterval)
        }

        /// An attempt starts.
        mutating func begin() {
            number += 1
            attemptStart = number == 1 ? firstStart : ContinuousClock.now
        }

        /// Whether the attempt's response is the answer, or another attempt follows.
        mutating func decide(after response: RawResponse) -> Decision {
            // A stream whose consumer got something already is not repeated, nor a streamed
            // body that was read (idempotency keys included): it cannot be produced again.
            guard let error = response.error, RetryStep.mayRetry(error),
                  request.bodyConsumer?.isCommitted != true, !request.streamedBodyWasRead,
                  // (A WebSocket's handshake is not repeated once answered.)
                  request.webSocket == nil || response.statusCode == nil else { return .finish(response) }
            let context = RetryContext(request: request, sentRequest: response.wasSent ? response.request : nil, error: error,
                                       attempt: number, attemptStarted: attemptStart, firstAttemptStarted: firstStart)
            switch retrier.retry(context) {
            case .doNotRetry:
                return .finish(response)
            case .fail(let replacement):
                var failed = response
                failed.error = replacement
                return .finish(failed)
            case .retry(let next, let delay):
                self.next = next
                lastError = error
                return .retry(seconds: delay.isFinite ? min(max(delay, 0), 300) : 300)
            }
        }

        /// After the wait: nil to attempt again, or the failure when the wait was cancelled.
        mutating func waited(_ completed: Bool) -> RawResponse? {
            guard completed, let next else {
                let message = lastError?.message ?? ""
                return RawResponse(request: request, error: HTTPTransportError(
                    code: .cancelled, message: "The send was cancelled while waiting to retry; the last attempt failed: \(message)",
                    url: lastError?.url, underlyingError: lastError))
            }
            request = next
            self.next = nil
            return nil
        }
    }

    /// Failures a retry cannot cure: the request itself is wrong, or the caller gave up.
    static func mayRetry(_ error: HTTPTransportError) -> Bool {
        switch error.code {
        case .cancelled, .interceptorFailed, .invalidURL, .encodingFailed: false
        default: true
        }
    }
}
