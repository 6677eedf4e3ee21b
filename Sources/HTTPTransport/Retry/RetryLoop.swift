import Foundation

/// Repeats a send's attempts while its retrier asks for it. Each attempt is the whole exchange
/// again (every hop, every interceptor), with its own time-out; the retrier's own limits bound
/// the attempts and their delays. A wait between attempts ends at once when the send is cancelled.
struct RetryLoop {
    let pipeline: SendPipeline
    let retrier: any HTTPRetrier

    func run(_ resolved: RawRequest) -> HTTPTransport.Result {
        let firstStart = ContinuousClock.now
        var request = retrier.prepareFirstAttempt(resolved)
        var number = 1
        while true {
            let attemptStart = number == 1 ? firstStart : ContinuousClock.now
            var sent: RawRequest?
            let result = pipeline.attempt(request, failedRequest: &sent)
            // A stream whose consumer got something already is not repeated.
            guard case .failure(let error) = result, Self.mayRetry(error),
                  request.streaming?.consumer.isCommitted != true else { return result }
            let context = RetryContext(request: request, sentRequest: sent, error: error, attempt: number,
                                       attemptStarted: attemptStart, firstAttemptStarted: firstStart)
            switch retrier.retry(context) {
            case .doNotRetry:
                return result
            case .fail(let replacement):
                return .failure(error: replacement)
            case .retry(let next, let delay):
                guard wait(delay) else {
                    return .failure(error: HTTPTransportError(
                        code: .cancelled, message: "The send was cancelled while waiting to retry; the last attempt failed: \(error.message)",
                        url: error.url, underlyingError: error))
                }
                request = next
                number += 1
            }
        }
    }

    /// Failures a retry cannot cure: the request itself is wrong, or the caller gave up.
    static func mayRetry(_ error: HTTPTransportError) -> Bool {
        switch error.code {
        case .cancelled, .interceptorFailed, .invalidURL, .encodingFailed: false
        default: true
        }
    }

    /// Waits `delay` seconds (at most five minutes); `false` when the send was cancelled.
    private func wait(_ delay: TimeInterval) -> Bool {
        let seconds = delay.isFinite ? min(max(delay, 0), 300) : 300
        guard let cancellation = pipeline.control.cancellation else {
            if seconds > 0 { Thread.sleep(forTimeInterval: seconds) }
            return true
        }
        return !cancellation.wait(seconds: seconds)
    }
}
