/// The first step, in a session that records telemetry: the send's metrics (duration, outcome,
/// bytes) once it ended; the spans are the hops' (`HopStep`).
struct SendTelemetryStep: SendStep {
    func send(_ request: RawRequest, next: SendChain) -> RawResponse {
        var response = next.proceed(request)
        next.telemetry.sendEnded(next.pipeline.result(of: &response))
        return response
    }

    func send(_ request: RawRequest, next: AsyncSendChain) async -> RawResponse {
        var response = await next.proceed(request)
        next.telemetry.sendEnded(next.pipeline.result(of: &response))
        return response
    }
}
