/// The cache's step: a hop's request is answered from the cache when it may be (nothing below
/// runs), revalidated, or sent, and what comes back is kept when it may be (`HTTPCache.plan`,
/// `CacheCompletion`). A streamed body is neither served from nor stored in it, nor a
/// WebSocket's handshake.
struct CacheStep: SendStep {
    let cache: HTTPCache

    /// What the cache does with the answer to the request it sent (nil: passed through).
    typealias Exchange = CacheCompletion?

    func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Exchange, action: HTTPSendAction) {
        guard request.bodyConsumer == nil, request.webSocket == nil else { return (nil, .forward(request)) }
        return Self.carryOut(cache.plan(request, for: context.pipeline.session))
    }

    func resume(_ exchange: inout Exchange, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
        guard let completion = exchange else { return .answer(response) }
        // Ends after at most two network calls (see `CacheCompletion.finish`).
        let next = Self.carryOut(completion.finish(response))
        exchange = next.exchange
        return next.action
    }

    /// The plan as an action: its answer, or its request with what to do with the response.
    static func carryOut(_ plan: CacheExchangePlan) -> (exchange: Exchange, action: HTTPSendAction) {
        switch plan {
        case .answered(let response): (nil, .answer(response))
        case .network(let request, let completion): (completion, .forward(request))
        }
    }
}
