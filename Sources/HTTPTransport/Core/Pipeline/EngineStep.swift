/// Below the last step: the session's engine performs the exchange. The blocking interpreter
/// runs it on the calling thread; the async one awaits the engine's `executeAsync` (libcurl's:
/// on the session's transfer loop; another engine's, by default, on one of the session's
/// transfer threads), or, for an async stream, only until the head arrived.
enum EngineStep {
    static func exchange(_ request: RawRequest, context: HTTPSendContext) -> RawResponse {
        let request = marked(request, keepsSentHead: context.pipeline.keepsSentHead)
        return context.pipeline.session.engine.execute(request, control: context.control)
    }

    nonisolated(nonsending) static func exchange(_ request: RawRequest, context: HTTPSendContext) async -> RawResponse {
        let request = marked(request, keepsSentHead: context.pipeline.keepsSentHead)
        if let consumer = request.bodyConsumer { return await exchange(request, consumedBy: consumer, context: context) }
        return await context.pipeline.session.executeAsync(request, control: context.control)
    }

    /// An async stream's exchange answers with its head while the body goes on
    /// (`ResponseBodyConsumer.exchangeAnsweredAtHead`): the steps above see the head.
    /// (Out of line: inlined, the stream's task, whose priority has a size known only at run
    /// time, would cost every send a task allocation.)
    @inline(never)
    private nonisolated(nonsending) static func exchange(_ request: RawRequest, consumedBy consumer: any ResponseBodyConsumer,
                                                          context: HTTPSendContext) async -> RawResponse {
        let session = context.pipeline.session
        if let answer = await consumer.exchangeAnsweredAtHead(
            request, control: context.control, perform: { await session.executeAsync($0, control: $1) }) {
            return answer
        }
        return await session.executeAsync(request, control: context.control)
    }

    /// `request`, asking the engine for the head it sends when the pipeline records it.
    private static func marked(_ request: RawRequest, keepsSentHead: Bool) -> RawRequest {
        guard keepsSentHead, !request.keepsSentHead else { return request }
        var request = request
        request.keepsSentHead = true
        return request
    }
}
