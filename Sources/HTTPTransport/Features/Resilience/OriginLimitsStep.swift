/// The per-origin step, below the cache (a cache hit takes no turn and counts for no circuit):
/// the circuit breaker, then the origin's rate and `Retry-After` pause (`OriginGuard`).
struct OriginLimitsStep: SendStep {
    func send(_ request: RawRequest, next: SendChain) -> RawResponse {
        guard let originGuard = next.pipeline.session.originGuard else { return next.proceed(request) }
        return originGuard.send(request, control: next.control, telemetry: next.telemetry, network: next.proceed)
    }

    func send(_ request: RawRequest, next: AsyncSendChain) async -> RawResponse {
        guard let originGuard = next.pipeline.session.originGuard else { return await next.proceed(request) }
        return await originGuard.send(request, control: next.control, telemetry: next.telemetry, network: next.proceed)
    }
}
