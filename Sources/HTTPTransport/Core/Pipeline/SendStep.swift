/// One step of a send, as OkHttp's interceptor chain has them: a step gets the request and the
/// rest of the chain (`next`); it may answer by itself (a cache hit, an open circuit), change
/// the request, hand it on (`next.proceed`) once or again (a redirect, a retry), and look at or
/// change what comes back. `SendPipeline.steps` builds the list, in one place.
///
/// The same list serves a blocking send (`SendChain`, on the calling thread) and an async one
/// (`AsyncSendChain`, on the session's transfer loop), so every step has both forms. What a step
/// decides lives once (the retry decisions, the hop rules, the cache's plan, the origin's
/// turn); the two forms differ only in how they wait.
protocol SendStep: Sendable {
    func send(_ request: RawRequest, next: SendChain) -> RawResponse
    func send(_ request: RawRequest, next: AsyncSendChain) async -> RawResponse
}

/// The rest of a blocking send's steps: the transport's pipeline (which holds the list), what
/// belongs to this send (its controls and telemetry), and the place in the list.
struct SendChain {
    let pipeline: SendPipeline
    /// This send's progress handler and cancellation.
    let control: TransferControl
    /// Spans and metrics of this send (nothing when the session records none).
    let telemetry: SendTelemetry
    var index = 0

    /// Hands `request` to the next step.
    func proceed(_ request: RawRequest) -> RawResponse {
        pipeline.steps[index].send(request, next: SendChain(pipeline: pipeline, control: control, telemetry: telemetry,
                                                            index: index + 1))
    }
}

/// The rest of an async send's steps, as `SendChain`.
struct AsyncSendChain {
    let pipeline: SendPipeline
    let control: TransferControl
    let telemetry: SendTelemetry
    var index = 0

    /// Hands `request` to the next step.
    func proceed(_ request: RawRequest) async -> RawResponse {
        await pipeline.steps[index].send(request, next: AsyncSendChain(pipeline: pipeline, control: control,
                                                                       telemetry: telemetry, index: index + 1))
    }
}
