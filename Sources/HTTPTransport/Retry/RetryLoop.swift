import Foundation

/// Repeats a send's attempts while its retrier asks for it. Each attempt is the whole exchange
/// again (every hop, every interceptor), with its own time-out; the retrier's own limits bound
/// the attempts and their delays. A wait between attempts ends at once when the send is cancelled.
///
/// The decisions live in `RetryLoop.Attempts`, shared by the blocking send (`run`, which sleeps
/// on its thread) and the async one (`SendPipeline.runAsync`, which holds no thread meanwhile).
struct RetryLoop {
    let pipeline: SendPipeline
    let retrier: any HTTPRetrier

    func run(_ resolved: RawRequest) -> HTTPTransport.Result {
        var attempts = Attempts(retrier: retrier, resolved: resolved)
        while true {
            var sent: RawRequest?
            attempts.begin()
            let result = pipeline.attempt(attempts.request, failedRequest: &sent)
            switch attempts.decide(after: result, sent: sent) {
            case .finish(let result):
                return result
            case .retry(let delay):
                if let failure = attempts.waited(wait(delay)) { return failure }
            }
        }
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

        init(retrier: any HTTPRetrier, resolved: RawRequest) {
            self.retrier = retrier
            request = retrier.prepareFirstAttempt(resolved)
        }

        enum Decision {
            case finish(HTTPTransport.Result)
            /// Wait this many seconds (capped, see `delay`), then attempt `request` again.
            case retry(seconds: TimeInterval)
        }

        /// An attempt starts.
        mutating func begin() {
            number += 1
            attemptStart = number == 1 ? firstStart : ContinuousClock.now
        }

        /// Whether the attempt's result is the answer, or another attempt follows.
        mutating func decide(after result: HTTPTransport.Result, sent: RawRequest?) -> Decision {
            // A stream whose consumer got something already is not repeated.
            guard case .failure(let error) = result, RetryLoop.mayRetry(error),
                  request.streaming?.consumer.isCommitted != true else { return .finish(result) }
            let context = RetryContext(request: request, sentRequest: sent, error: error, attempt: number,
                                       attemptStarted: attemptStart, firstAttemptStarted: firstStart)
            switch retrier.retry(context) {
            case .doNotRetry:
                return .finish(result)
            case .fail(let replacement):
                return .finish(.failure(error: replacement))
            case .retry(let next, let delay):
                self.next = next
                lastError = error
                return .retry(seconds: delay.isFinite ? min(max(delay, 0), 300) : 300)
            }
        }

        /// After the wait: nil to attempt again, or the failure when the wait was cancelled.
        mutating func waited(_ completed: Bool) -> HTTPTransport.Result? {
            guard completed, let next else {
                let message = lastError?.message ?? ""
                return .failure(error: HTTPTransportError(
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

    /// Waits `seconds` (at most five minutes, see `Attempts.decide`); `false` when the send was cancelled.
    private func wait(_ seconds: TimeInterval) -> Bool {
        guard let cancellation = pipeline.control.cancellation else {
            if seconds > 0 { Thread.sleep(forTimeInterval: seconds) }
            return true
        }
        return !cancellation.wait(seconds: seconds)
    }
}
