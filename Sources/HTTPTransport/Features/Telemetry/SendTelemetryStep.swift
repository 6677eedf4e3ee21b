/// The first step: the send's metrics (duration, outcome, bytes) once it ended; the spans are
/// the hops' (`HopStep`). Nothing when the session records no telemetry.
struct SendTelemetryStep: SendStep {
    func send(_ request: RawRequest, next: SendChain) -> RawResponse {
        let telemetry = next.pipeline.telemetry
        guard telemetry.isRecording else { return next.proceed(request) }
        var response = next.proceed(request)
        telemetry.sendEnded(next.pipeline.result(of: &response))
        return response
    }

    func send(_ request: RawRequest, next: AsyncSendChain) async -> RawResponse {
        let telemetry = next.pipeline.telemetry
        guard telemetry.isRecording else { return await next.proceed(request) }
        var response = await next.proceed(request)
        telemetry.sendEnded(next.pipeline.result(of: &response))
        return response
    }
}
