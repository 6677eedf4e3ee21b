import Foundation

/// A streamed body as the request's `ResponseBodyConsumer`: how the core reaches a stream
/// (its sink, its rules per pipeline and hop, a body an engine returned whole) without naming
/// this feature's types. Immutable: a changed rule is a new hook.
final class StreamingBodyHook: ResponseBodyConsumer {
    let body: StreamingBody

    init(_ body: StreamingBody) { self.body = body }

    /// The receiver of one transfer: the request's time-out bounds the head, the session's
    /// stall time-out the silence after it.
    func makeSink(for request: RawRequest, configuration: Session.Configuration) -> any BodySink {
        StreamReceiver(body: body, headTimeout: request.timeout,
                       stallTimeout: StreamingBody.stallTimeout(configuration.stallTimeout))
    }

    func forPipeline(validatesStatus: Bool, followsRedirects: Bool) -> any ResponseBodyConsumer {
        var changed = body
        changed.validatesStatus = validatesStatus
        changed.followsRedirects = followsRedirects
        return StreamingBodyHook(changed)
    }

    func forHop(redirects: Int) -> any ResponseBodyConsumer {
        var changed = body
        changed.redirects = redirects
        return StreamingBodyHook(changed)
    }

    func finish(_ response: inout RawResponse) { body.finish(&response) }
    var isCommitted: Bool { body.consumer.isCommitted }

    /// An async stream's exchange answers the chain with its head (`StreamChannel.exchange`);
    /// the blocking closure's and Server-Sent Events' consumers take the exchange whole.
    nonisolated(nonsending) func exchangeAnsweredAtHead(
        _ request: RawRequest, control: TransferControl,
        perform: @escaping @Sendable (RawRequest, TransferControl) async -> RawResponse) async -> RawResponse? {
        // (A request that went out already carries its exchange's attempt: a repeat of it, by a
        // retrier or a step, is a new exchange of the same channel.)
        guard let channel = body.consumer as? StreamChannel ?? (body.consumer as? StreamAttempt)?.channel else { return nil }
        return await channel.exchange(request, body: body, control: control, perform: perform)
    }

    func afterTransfer(_ action: @escaping @Sendable () -> Void) -> Bool {
        (body.consumer as? StreamChannel ?? (body.consumer as? StreamAttempt)?.channel)?.afterTransfer(action) ?? false
    }

    func isEqual(to other: any ResponseBodyConsumer) -> Bool { (other as? StreamingBodyHook)?.body == body }
    func hash(into hasher: inout Hasher) { body.hash(into: &hasher) }
}
