/// The per-origin step, below the cache (a cache hit takes no turn and counts for no circuit):
/// the circuit breaker, then the origin's rate and `Retry-After` pause (`OriginGuard`).
struct OriginLimitsStep: SendStep {
    let originGuard: OriginGuard

    func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: OriginGuard.Progress, action: HTTPSendAction) {
        originGuard.start(request, telemetry: context.telemetry)
    }

    func resume(_ exchange: inout OriginGuard.Progress, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
        originGuard.resume(&exchange, with: response)
    }

    func resume(_ exchange: inout OriginGuard.Progress, afterWaiting completed: Bool, context: HTTPSendContext) -> HTTPSendAction {
        originGuard.resume(&exchange, afterWaiting: completed, telemetry: context.telemetry)
    }
}
