/// The first step, in a session that records telemetry: the send's metrics (duration, outcome,
/// bytes) once it ended; the spans are the hops' (`HopStep`).
struct SendTelemetryStep: SendStep {
    func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: Void, action: HTTPSendAction) {
        ((), .forward(request))
    }

    func resume(_ exchange: inout Void, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
        var response = response
        context.telemetry.sendEnded(context.pipeline.result(of: &response))
        return .answer(response)
    }
}
