import Foundation

/// The async send: the same pipeline as `run`, step for step, but its waits hold no thread:
/// the exchange is awaited on the session's transfer loop, and the back-off between retries
/// and the wait for an origin's turn are task sleeps. The steps between (interceptors, hop
/// rules, redirects, validation, the cache) run in the awaiting task, never on the loop thread.
extension SendPipeline {
    func runAsync(_ request: some HTTPRequestEnvelope) async -> HTTPTransport.Result {
        guard telemetry.isRecording else { return await sendAsync(request) }
        let result = await sendAsync(request)
        telemetry.sendEnded(result)
        return result
    }

    private func sendAsync(_ request: some HTTPRequestEnvelope) async -> HTTPTransport.Result {
        let resolved: RawRequest
        do {
            resolved = try resolve(request)
        } catch {
            return .failure(error: error)
        }
        guard let retrier else {
            var sent: RawRequest?
            return await attemptAsync(resolved, failedRequest: &sent)
        }
        var attempts = RetryLoop.Attempts(retrier: retrier, resolved: resolved)
        while true {
            var sent: RawRequest?
            attempts.begin()
            let result = await attemptAsync(attempts.request, failedRequest: &sent)
            switch attempts.decide(after: result, sent: sent) {
            case .finish(let result):
                return result
            case .retry(let seconds):
                let cancelled = await (control.cancellation ?? CancellationHandle()).sleep(seconds: seconds)
                if let failure = attempts.waited(!cancelled) { return failure }
            }
        }
    }

    /// One attempt, as `attempt`.
    private func attemptAsync(_ resolved: consuming RawRequest, failedRequest: inout RawRequest?) async -> HTTPTransport.Result {
        var hop = Hop(first: resolved)
        while true {
            let sent: RawRequest
            do {
                sent = try intercept(&hop)
            } catch {
                return .failure(error: error)
            }
            switch conclude(hop: hop, sent: sent, response: await executeAsync(sent, hop: hop)) {
            case .next(let next):
                hop = next
            case .done(let result, let failed):
                failedRequest = failed
                return result
            }
        }
    }

    /// Execute, as `execute`.
    private func executeAsync(_ request: RawRequest, hop: Hop) async -> RawResponse {
        var response: RawResponse
        if request.streaming != nil {
            response = await networkAsync(Self.streamed(request, hop: hop))
            StreamingBody.finish(&response)
        } else if let cache = session.configuration.cache {
            response = await cache.exchange(request, for: session, network: networkAsync)
        } else {
            response = await networkAsync(request)
        }
        hopEnded(&response, hop: hop)
        return response
    }

    private func networkAsync(_ request: RawRequest) async -> RawResponse {
        await session.awaitNetwork(request, control: control, telemetry: telemetry)
    }
}
