/// The hops of one attempt: each hop's request through the request interceptors within the hop
/// rules (credentials stay with their origin, one deadline for the whole exchange), handed on;
/// a redirect to follow becomes the next hop; the final response is validated and goes through
/// the response interceptors. Per hop, the telemetry records a span.
struct HopStep: SendStep {
    func send(_ request: RawRequest, next: SendChain) -> RawResponse {
        let pipeline = next.pipeline
        var hop = Hop(first: request)
        while true {
            let sent: RawRequest
            do {
                sent = try pipeline.intercept(&hop, telemetry: next.telemetry)
            } catch {
                return Self.unsent(hop, error)
            }
            let streaming = sent.bodyConsumer
            // (The response goes straight in: held here too, its first change would copy it.)
            switch pipeline.conclude(hop: hop, streaming: streaming, response: next.proceed(Self.prepared(consume sent, hop: hop)),
                                     telemetry: next.telemetry) {
            case .next(let following): hop = following
            case .done(let response): return response
            }
        }
    }

    func send(_ request: RawRequest, next: AsyncSendChain) async -> RawResponse {
        let pipeline = next.pipeline
        var hop = Hop(first: request)
        while true {
            let sent: RawRequest
            do {
                sent = try pipeline.intercept(&hop, telemetry: next.telemetry)
            } catch {
                return Self.unsent(hop, error)
            }
            let streaming = sent.bodyConsumer
            // (The response goes straight in: held here too, its first change would copy it.)
            switch pipeline.conclude(hop: hop, streaming: streaming, response: await next.proceed(Self.prepared(consume sent, hop: hop)),
                                     telemetry: next.telemetry) {
            case .next(let following): hop = following
            case .done(let response): return response
            }
        }
    }

    /// A hop a request interceptor failed: nothing was sent.
    private static func unsent(_ hop: Hop, _ error: HTTPTransportError) -> RawResponse {
        var response = RawResponse(request: hop.request, error: error)
        response.wasSent = false
        return response
    }

    /// A streamed request knows its redirects (for the metrics of the head handed over).
    private static func prepared(_ request: consuming RawRequest, hop: Hop) -> RawRequest {
        if let consumer = request.bodyConsumer { request.bodyConsumer = consumer.forHop(redirects: hop.redirects) }
        return request
    }
}

extension SendPipeline {
    /// How a hop ended: another hop follows (a redirect), or the attempt's response.
    enum HopOutcome {
        case next(Hop)
        case done(RawResponse)
    }

    /// After a hop's exchange: its figures and span; then follow the redirect, or validate and
    /// intercept the response.
    /// (`streaming`: the hop's streamed body, if its request had one.)
    func conclude(hop: Hop, streaming: (any ResponseBodyConsumer)?, response: consuming RawResponse, telemetry: SendTelemetry) -> HopOutcome {
        streaming?.finish(&response)
        if response.metrics.redirectCount != hop.redirects { response.metrics.redirectCount = hop.redirects }
        telemetry.hopEnded(response)
        if let next = followRedirect(&response, from: hop) { return .next(next) }
        // (An async stream's caller ran these on the head already.)
        if streaming?.concludedHead != true {
            validate(&response)
            intercept(&response)
        }
        if response.error != nil, response.error?.url == nil {
            let url = response.request.url.absoluteString
            response.error?.url = url
        }
        return .done(response)
    }
}
