import Foundation

/// One send, as one straight pipeline (DESIGN §3):
///
///     resolve → for each hop: intercept request → execute (cache → per-origin limits → engine)
///             → follow redirect
///             → validate → intercept response → Result
///
/// Each step is one function below. When the transport has a retrier, it repeats whole
/// attempts (every hop again, from the resolved request).
struct SendPipeline {
    let session: Session
    let control: TransferControl
    /// Spans and metrics of this send (nothing when the session records none).
    let telemetry: SendTelemetry
    /// The request's own interceptors, its base's, then the transport's.
    let requestInterceptors: [any HTTPRequestInterceptor]
    /// The request's interceptors, then the transport's.
    let responseInterceptors: [any HTTPResponseInterceptor]
    /// Whether a status other than 2xx is a failure (`HTTPTransport.useDefaultValidation`).
    let validatesStatus: Bool
    /// Decides whether a failed attempt is sent again.
    let retrier: (any HTTPRetrier)?

    init(transport: HTTPTransport, request: borrowing some HTTPRequestEnvelope, control: TransferControl) {
        self.control = control
        validatesStatus = transport.useDefaultValidation
        retrier = transport.retrier
        session = request.session ?? transport.session
        telemetry = SendTelemetry(session: session)
        requestInterceptors = request.requestInterceptors.isEmpty
            ? transport.requestInterceptors : request.requestInterceptors + transport.requestInterceptors
        responseInterceptors = request.responseInterceptors.isEmpty
            ? transport.responseInterceptors : request.responseInterceptors + transport.responseInterceptors
    }

    /// Sends `request`: resolves it, then attempts (and retries) it.
    func run(_ request: some HTTPRequestEnvelope) -> HTTPTransport.Result {
        guard telemetry.isRecording else { return send(request) }
        let result = send(request)
        telemetry.sendEnded(result)
        return result
    }

    private func send(_ request: some HTTPRequestEnvelope) -> HTTPTransport.Result {
        let resolved: RawRequest
        do {
            resolved = try resolve(request)
        } catch {
            return .failure(error: error)
        }
        guard let retrier else {
            var sent: RawRequest?
            return attempt(resolved, failedRequest: &sent)
        }
        return RetryLoop(pipeline: self, retrier: retrier).run(resolved)
    }

    /// One attempt: every hop of the exchange, until a final response or a failure.
    /// `failedRequest` is the last request sent when the attempt failed (for a retrier).
    func attempt(_ resolved: consuming RawRequest, failedRequest: inout RawRequest?) -> HTTPTransport.Result {
        var hop = Hop(first: resolved)
        while true {
            let sent: RawRequest
            do {
                sent = try intercept(&hop)
            } catch {
                return .failure(error: error)
            }
            var response = execute(sent, hop: hop)
            if let next = followRedirect(&response, from: hop) {
                hop = next
                continue
            }
            // (An async stream's caller ran these on the head already.)
            if sent.streaming?.consumer.concludedHead != true {
                validate(&response)
                intercept(&response)
            }
            if response.error != nil { failedRequest = sent }
            return result(of: &response)
        }
    }

    // MARK: Steps

    /// Resolve: the request value in its wire form (base merged, URL parsed, parameters encoded).
    private func resolve(_ request: some HTTPRequestEnvelope) throws(HTTPTransportError) -> RawRequest {
        do {
            var resolved = try request.resolve(endpoints: session.parsedEndpoints)
            // Which bodies stream follows from validation and redirects (StreamingBody.streams).
            if resolved.streaming != nil {
                resolved.streaming?.validatesStatus = validatesStatus
                resolved.streaming?.followsRedirects = session.configuration.maxRedirects > 0
            }
            return resolved
        } catch {
            var error = error
            if error.url == nil { error.url = request.endpoint }
            throw error
        }
    }

    /// Intercept request: the hop's request through the request interceptors, within the hop
    /// rules (credentials stay with their origin, one deadline for the whole exchange).
    private func intercept(_ hop: inout Hop) throws(HTTPTransportError) -> RawRequest {
        let start = hop.deadline == nil ? Hop.clock : nil
        var request = hop.request
        telemetry.hopStarted(&request)
        do {
            try hop.prepareForInterceptors(&request)
            try Self.intercept(&request, with: requestInterceptors)
            try hop.restrict(&request, credentialHeaders: session.configuration.credentialHeaders)
        } catch {
            telemetry.hopFailed(error)
            throw error
        }
        // The first hop's time-out, as its interceptors left it, starts the exchange's deadline.
        if let start { hop.deadline = start + .milliseconds(CurlEngine.milliseconds(request.timeout)) }
        telemetry.hopWillSend(&request)
        return request
    }

    /// Execute: the cache answers, or the engine performs the exchange (and the cache keeps what
    /// it may; a streamed body is neither served from nor stored in it).
    private func execute(_ request: RawRequest, hop: Hop) -> RawResponse {
        var response: RawResponse
        if request.streaming != nil {
            // A stream neither uses nor fills the cache.
            var streamed = request
            streamed.streaming?.redirects = hop.redirects  // for the metrics of the head handed over
            response = network(streamed)
            StreamingBody.finish(&response)
        } else if let cache = session.configuration.cache {
            response = cache.exchange(request, for: session, network: network)
        } else {
            response = network(request)
        }
        response.metrics.redirectCount = hop.redirects
        telemetry.hopEnded(response)
        return response
    }

    /// Per-origin limits, around what reaches the network (a cache hit takes no turn): the
    /// circuit breaker, then the origin's rate and `Retry-After` pause (see `OriginGuard`).
    private func network(_ request: RawRequest) -> RawResponse {
        session.network(request, control: control, telemetry: telemetry)
    }

    /// Follow redirect: the next hop, when the response is a redirect to follow. The redirect
    /// response passes the response interceptors first (its cookies are stored, it is logged);
    /// a redirect that must not be followed becomes the response's error.
    private func followRedirect(_ response: inout RawResponse, from hop: Hop) -> Hop? {
        guard let next = RedirectRule.nextRequest(after: hop.request, response: response,
                                                  allowsInsecureRedirects: session.configuration.allowsInsecureRedirects)
        else { return nil }
        let limit = session.configuration.maxRedirects
        if hop.redirects >= limit {
            // No redirects allowed: the 3xx response is the answer.
            if limit > 0 {
                response.error = HTTPTransportError(
                    code: .tooManyRedirects, message: "Stopped after \(hop.redirects) redirects (the session allows \(limit)).",
                    url: response.request.url.absoluteString, httpStatusCode: response.statusCode,
                    responseHeaders: response.headers, responseBodyData: response.data)
            }
            return nil
        }
        switch next {
        case .failure(let error):
            response.error = error
            return nil
        case .success(let request):
            var seen = response
            intercept(&seen)
            if seen.error != nil {
                response = seen
                return nil
            }
            return hop.next(request)
        }
    }

    /// Validate: by default, a status other than 2xx is an `.httpStatus` failure carrying the
    /// response; a response without a status is a `.badResponse`.
    func validate(_ response: inout RawResponse) {
        guard response.error == nil else { return }
        let request = response.request
        guard let status = response.statusCode else {
            response.error = HTTPTransportError(code: .badResponse, message: "No response status was received.",
                                                url: request.url.absoluteString)
            return
        }
        guard validatesStatus, !status.isSuccess else { return }
        response.error = HTTPTransportError(
            code: .httpStatus,
            message: "The server answered \(status.rawValue) \(status.reasonPhrase) for \(request.method.rawValue) \(request.url.absoluteString).",
            url: request.url.absoluteString, httpStatusCode: status,
            responseHeaders: response.headers, responseBodyData: response.data)
    }

    /// Intercept response: the request's response interceptors, then the transport's.
    func intercept(_ response: inout RawResponse) {
        for interceptor in responseInterceptors where response.error != nil || interceptor.interceptsSuccesses {
            response = interceptor.intercept(response: response)
        }
    }

    /// The `Result`: the response, or the failure the interceptors left.
    private func result(of response: inout RawResponse) -> HTTPTransport.Result {
        if var error = response.error {
            if error.url == nil { error.url = response.request.url.absoluteString }
            return .failure(error: error)
        }
        guard let status = response.statusCode else {
            return .failure(error: HTTPTransportError(code: .badResponse, message: "No response status was received.",
                                                      url: response.request.url.absoluteString))
        }
        return .success(response: HTTPResponse(
            httpStatus: status, headers: response.headers, body: response.data, request: response.request,
            metrics: response.metrics, fileURL: response.fileURL))
    }

    /// Runs the request interceptors in order; a throw ends the send (`.interceptorFailed`, or
    /// the interceptor's own `HTTPTransportError`).
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
                    code: .interceptorFailed, message: "Request interceptor \(type(of: interceptor)) failed: \(error)",
                    url: request.url.absoluteString, underlyingError: error)
            }
        }
    }
}
