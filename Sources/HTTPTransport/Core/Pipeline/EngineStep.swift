/// The last step: the session's engine performs the exchange. A blocking send runs it on the
/// calling thread; an async one awaits the engine's `executeAsync` (libcurl's: on the session's
/// transfer loop; another engine's, by default, on one of the session's transfer threads).
struct EngineStep: SendStep {
    func send(_ request: RawRequest, next: SendChain) -> RawResponse {
        let request = Self.marked(request, keepsSentHead: next.pipeline.keepsSentHead)
        return next.pipeline.session.engine.execute(request, control: next.control)
    }

    func send(_ request: RawRequest, next: AsyncSendChain) async -> RawResponse {
        let request = Self.marked(request, keepsSentHead: next.pipeline.keepsSentHead)
        return await next.pipeline.session.executeAsync(request, control: next.control)
    }

    /// `request`, asking the engine for the head it sends when the pipeline records it.
    private static func marked(_ request: RawRequest, keepsSentHead: Bool) -> RawRequest {
        guard keepsSentHead, !request.keepsSentHead else { return request }
        var request = request
        request.keepsSentHead = true
        return request
    }
}
