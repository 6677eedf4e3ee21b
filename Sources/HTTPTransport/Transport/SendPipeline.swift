import Foundation

/// One send, as one straight pipeline:
/// resolve → request interceptors → engine → (redirect? next hop) → validation →
/// response interceptors → `Result`.
struct SendPipeline {
    let transport: HTTPTransport

    func run(_ request: some HTTPRequestEnvelope, control: TransferControl) -> HTTPTransport.Result {
        let session = request.session ?? transport.session
        // (No new array when the request has no interceptors of its own, the common case.)
        let requestInterceptors = request.requestInterceptors.isEmpty
            ? transport.requestInterceptors : request.requestInterceptors + transport.requestInterceptors
        let responseInterceptors = request.responseInterceptors.isEmpty
            ? transport.responseInterceptors : request.responseInterceptors + transport.responseInterceptors

        // 1. Resolve the request value into its wire form.
        var resolved: RawRequest
        do {
            resolved = try request.resolve()
        } catch {
            var error = error
            if error.url == nil { error.url = request.endpoint }
            return .failure(error: error)
        }

        // 2–7 for each attempt; the retrier decides whether a failure is sent again.
        guard let retrier = transport.retrier else {
            return attemptOnce(resolved, session: session, control: control, requestInterceptors: requestInterceptors,
                               responseInterceptors: responseInterceptors).result
        }
        let firstStart = ContinuousClock.now
        var attempt = 1
        while true {
            let attemptStart = ContinuousClock.now
            let (result, sent) = attemptOnce(resolved, session: session, control: control,
                                             requestInterceptors: requestInterceptors,
                                             responseInterceptors: responseInterceptors)
            guard case .failure(let error) = result, error.code != .cancelled,
                  error.code != .interceptorFailed, error.code != .invalidURL, error.code != .encodingFailed
            else { return result }
            let context = RetryContext(request: resolved, sentRequest: sent, error: error, attempt: attempt,
                                       attemptStarted: attemptStart, firstAttemptStarted: firstStart)
            switch retrier.retry(context) {
            case .doNotRetry:
                return result
            case .fail(let replacement):
                return .failure(error: replacement)
            case .retry(let request, let delay):
                if control.cancellation?.isCancelled == true { return result }
                if delay > 0 { Thread.sleep(forTimeInterval: min(delay, 300)) }
                resolved = request
                attempt += 1
            }
        }
    }

    /// One attempt: request interceptors, engine, redirects, validation, response interceptors.
    private func attemptOnce(
        _ resolved: RawRequest, session: Session, control: TransferControl,
        requestInterceptors: [any HTTPRequestInterceptor], responseInterceptors: [any HTTPResponseInterceptor]
    ) -> (result: HTTPTransport.Result, sent: RawRequest?) {
        var redirected: RawRequest?  // the next hop's request, once a redirect was followed
        var redirects = 0
        while true {
            // 2. Request interceptors: the request's own, its base's, then the transport's.
            var sent: RawRequest
            if let redirected { sent = redirected } else { sent = resolved }
            do {
                try Self.intercept(&sent, with: requestInterceptors)
            } catch {
                return (.failure(error: error), nil)
            }

            // 3. The cache answers, or the engine performs the exchange.
            var response = session.configuration.cache.map { cache in
                cache.exchange(sent, credentialHeaders: session.configuration.credentialHeaders) {
                    session.engine.execute($0, control: control)
                }
            } ?? session.engine.execute(sent, control: control)
            response.metrics.redirectCount = redirects

            // 4. Redirects are followed here, so every hop passes the interceptors.
            if response.error == nil, let status = response.statusCode?.rawValue, RedirectRule.isRedirect(status),
               let next = RedirectRule.nextRequest(after: redirected ?? resolved, response: response) {
                if redirects >= session.configuration.maxRedirects {
                    if session.configuration.maxRedirects > 0 {
                        response.error = HTTPTransportError(
                            code: .tooManyRedirects,
                            message: "Stopped after \(redirects) redirects (the session allows \(session.configuration.maxRedirects)).",
                            url: sent.url.absoluteString, httpStatusCode: response.statusCode,
                            responseHeaders: response.headers, responseBodyData: response.data)
                    }
                } else {
                    var seen = response
                    Self.intercept(&seen, with: responseInterceptors)
                    if let error = seen.error { return (.failure(error: error), sent) }
                    switch next {
                    case .success(let request):
                        redirected = request
                        redirects += 1
                        continue
                    case .failure(let error):
                        return (.failure(error: error), sent)
                    }
                }
            }

            // 5. Default validation: 2xx, else an HTTP-status error carrying the response.
            if response.error == nil {
                if let status = response.statusCode {
                    if transport.useDefaultValidation, !status.isSuccess {
                        response.error = HTTPTransportError(
                            code: .httpStatus,
                            message: "The server answered \(status.rawValue) \(status.reasonPhrase) for \(sent.method.rawValue) \(sent.url.absoluteString).",
                            url: sent.url.absoluteString, httpStatusCode: status,
                            responseHeaders: response.headers, responseBodyData: response.data)
                    }
                } else {
                    response.error = HTTPTransportError(code: .badResponse, message: "No response status was received.",
                                                        url: sent.url.absoluteString)
                }
            }

            // 6. Response interceptors: the request's, then the transport's.
            Self.intercept(&response, with: responseInterceptors)

            // 7. The result.
            if var error = response.error {
                if error.url == nil { error.url = sent.url.absoluteString }
                return (.failure(error: error), sent)
            }
            guard let status = response.statusCode else {
                return (.failure(error: HTTPTransportError(code: .badResponse, message: "No response status was received.",
                                                           url: sent.url.absoluteString)), sent)
            }
            // (The sent request goes back only with a failure: the retrier needs it, a success not.)
            return (.success(response: HTTPResponse(
                httpStatus: status, headers: response.headers, body: response.data, request: response.request,
                metrics: response.metrics, fileURL: response.fileURL)), nil)
        }
    }

    static func intercept(_ request: inout RawRequest, with interceptors: [any HTTPRequestInterceptor]) throws(HTTPTransportError) {
        for interceptor in interceptors {
            do {
                request = try interceptor.intercept(request: request)
            } catch let error as HTTPTransportError {
                var error = error
                if error.url == nil { error.url = request.url.absoluteString }
                throw error
            } catch {
                throw HTTPTransportError(
                    code: .interceptorFailed,
                    message: "Request interceptor \(type(of: interceptor)) failed: \(error)",
                    url: request.url.absoluteString,
                    underlyingError: error)
            }
        }
    }

    static func intercept(_ response: inout RawResponse, with interceptors: [any HTTPResponseInterceptor]) {
        for interceptor in interceptors {
            // The default interceptor only ever changes a failure: a success skips it, and with it
            // the copy of the response that handing it over and back would cost.
            if response.error == nil, type(of: interceptor) == ClarifyErrorInterceptor.self { continue }
            response = interceptor.intercept(response: response)
        }
    }
}
