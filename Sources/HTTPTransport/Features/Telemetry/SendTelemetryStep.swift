/// The first step, in a session that records telemetry: the send's metrics (duration, outcome,
/// bytes) once it ended; the spans are the hops' (`HopStep`). A stream answered with its head
/// ends with its body: its metrics are told then, with the body's bytes and failure.
struct SendTelemetryStep: SendStep {
    func start(_ request: RawRequest, context: HTTPSendContext) -> (exchange: (any ResponseBodyConsumer)?, action: HTTPSendAction) {
        (request.bodyConsumer, .forward(request))
    }

    func resume(_ body: inout (any ResponseBodyConsumer)?, with response: RawResponse, context: HTTPSendContext) -> HTTPSendAction {
        var response = response
        let pipeline = context.pipeline
        // (A head a step failed is the send's outcome now, whatever its transfer does next.)
        if response.error != nil || !context.telemetry.deferred(to: body, { events, last in
            var last = last
            events.sendEnded(pipeline.result(of: &last))
        }) {
            context.telemetry.sendEnded(pipeline.result(of: &response))
        }
        return .answer(response)
    }
}
