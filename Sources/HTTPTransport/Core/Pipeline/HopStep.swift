/// The hops of one attempt: each hop's request through the request interceptors within the hop
/// rules (credentials stay with their origin, one deadline for the whole exchange), handed on;
/// a redirect to follow becomes the next hop; the final response is validated and goes through
/// the response interceptors. Per hop, the telemetry records a span.
struct HopStep: SendStep {
    /// The hop under way, and its streamed body, if its request had one.
    struct Exchange {
        var hop: Hop
        var streaming: (any ResponseBodyConsumer)?
    }

    func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Exchange, action: HTTPSendAction) {
        var exchange = Exchange(hop: Hop(first: request))
        let action = send(&exchange, context: context)
        return (exchange, action)
    }

    func resume(_ exchange: inout Exchange, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
        switch context.pipeline.conclude(hop: exchange.hop, streaming: exchange.streaming, response: response,
                                         telemetry: context.telemetry) {
        case .next(let following):
            exchange.hop = following
            return send(&exchange, context: context)
        case .done(let response):
            return .answer(response)
        }
    }

    /// The hop's request through the request interceptors and the hop rules, to send.
    private func send(_ exchange: inout Exchange, context: HTTPSendContext) -> HTTPSendAction {
        let sent: RawRequest
        do {
            sent = try context.pipeline.intercept(&exchange.hop, telemetry: context.telemetry)
        } catch {
            return .answer(Self.unsent(exchange.hop, error))
        }
        let prepared = Self.prepared(consume sent, hop: exchange.hop)
        // (The hop's own consumer, with its count: the response may come on another request value.)
        exchange.streaming = prepared.bodyConsumer
        return .forward(prepared)
    }

    /// A hop a request interceptor failed: nothing was sent.
    static func unsent(_ hop: Hop, _ error: HTTPTransportError) -> RawResponse {
        var response = RawResponse(request: hop.request, error: error)
        response.wasSent = false
        return response
    }

    /// A streamed request knows its redirects (for the metrics of the head handed over).
    static func prepared(_ request: consuming RawRequest, hop: Hop) -> RawRequest {
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
    func conclude(hop: Hop, streaming: (any ResponseBodyConsumer)?, response: consuming RawResponse, telemetry: SendEvents) -> HopOutcome {
        streaming?.finish(&response)
        if response.metrics.redirectCount != hop.redirects { response.metrics.redirectCount = hop.redirects }
        telemetry.hopEnded(response)
        if let next = followRedirect(&response, from: hop) { return .next(next) }
        // (An async stream's head comes here while its body goes on: it is validated and
        // intercepted like any response, once; the body's end goes to the stream, not here.)
        validate(&response)
        intercept(&response)
        if response.error != nil, response.error?.url == nil {
            let url = response.request.url.absoluteString
            response.error?.url = url
        }
        return .done(response)
    }
}
