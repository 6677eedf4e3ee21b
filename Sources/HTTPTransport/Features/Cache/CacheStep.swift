/// The cache's step: a hop's request is answered from the cache when it may be (nothing below
/// runs), revalidated, or sent, and what comes back is kept when it may be (`HTTPCache`).
/// A streamed body is neither served from nor stored in it, nor a WebSocket's handshake.
struct CacheStep: SendStep {
    func send(_ request: RawRequest, next: SendChain) -> RawResponse {
        guard request.bodyConsumer == nil, request.webSocket == nil, let cache = next.pipeline.session.configuration.cache else { return next.proceed(request) }
        return cache.exchange(request, for: next.pipeline.session, network: next.proceed)
    }

    func send(_ request: RawRequest, next: AsyncSendChain) async -> RawResponse {
        guard request.bodyConsumer == nil, request.webSocket == nil, let cache = next.pipeline.session.configuration.cache else {
            return await next.proceed(request)
        }
        return await cache.exchange(request, for: next.pipeline.session, network: next.proceed)
    }
}
