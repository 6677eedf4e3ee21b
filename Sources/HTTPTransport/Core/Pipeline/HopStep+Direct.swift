extension HopStep {
    /// The hops of a blocking send whose only step is this one (`SendPipeline.onlyHops`), the
    /// engine called in place of the steps below: what `run(_:context:below:)` does with the
    /// engine below, without the interpreter's closure, actions and exchange (0.45k of the 8.4k
    /// instructions a blocking GET spends outside libcurl). `HopOnlyPathTests` sends the same
    /// requests both ways and compares the responses.
    static func sendDirectly(_ request: RawRequest, context: HTTPSendContext) -> RawResponse {
        var hop = Hop(first: request)
        while true {
            let sent: RawRequest
            do {
                sent = try context.pipeline.intercept(&hop, telemetry: context.telemetry)
            } catch {
                return unsent(hop, error)
            }
            let prepared = prepared(consume sent, hop: hop)
            // (The hop's own consumer, with its count: the response may come on another request value.)
            let streaming = prepared.bodyConsumer
            let response = EngineStep.exchange(prepared, context: context)
            switch context.pipeline.conclude(hop: hop, streaming: streaming, response: response, telemetry: context.telemetry) {
            case .next(let following): hop = following
            case .done(let response): return response
            }
        }
    }

    /// The same in an async send, awaiting the engine.
    nonisolated(nonsending) static func sendDirectly(_ request: RawRequest, context: HTTPSendContext) async -> RawResponse {
        var hop = Hop(first: request)
        while true {
            let sent: RawRequest
            do {
                sent = try context.pipeline.intercept(&hop, telemetry: context.telemetry)
            } catch {
                return unsent(hop, error)
            }
            let prepared = prepared(consume sent, hop: hop)
            let streaming = prepared.bodyConsumer
            let response = await EngineStep.exchange(prepared, context: context)
            switch context.pipeline.conclude(hop: hop, streaming: streaming, response: response, telemetry: context.telemetry) {
            case .next(let following): hop = following
            case .done(let response): return response
            }
        }
    }
}
