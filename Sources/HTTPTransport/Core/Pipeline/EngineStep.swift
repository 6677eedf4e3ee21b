/// Below the last step: the session's engine performs the exchange. The blocking interpreter
/// runs it on the calling thread; the async one awaits it on the session's transfer loop
/// (libcurl's engine) or, for another engine (a stub, a replay, your own), which may block, on
/// one of the session's transfer threads.
enum EngineStep {
    static func exchange(_ request: RawRequest, context: HTTPSendContext) -> RawResponse {
        let request = marked(request, keepsSentHead: context.pipeline.keepsSentHead)
        return context.pipeline.session.engine.execute(request, control: context.control)
    }

    static func exchange(_ request: RawRequest, context: HTTPSendContext) async -> RawResponse {
        let request = marked(request, keepsSentHead: context.pipeline.keepsSentHead)
        let session = context.pipeline.session
        let control = context.control
        if let loopEngine = session.loopEngine { return await loopEngine.executeOnLoop(request, control: control) }
        let engine = session.engine
        return await session.onTransferThread(for: request.url.absoluteString) { engine.execute(request, control: control) }
    }

    /// `request`, asking the engine for the head it sends when the pipeline records it.
    private static func marked(_ request: RawRequest, keepsSentHead: Bool) -> RawRequest {
        guard keepsSentHead, !request.keepsSentHead else { return request }
        var request = request
        request.keepsSentHead = true
        return request
    }
}
