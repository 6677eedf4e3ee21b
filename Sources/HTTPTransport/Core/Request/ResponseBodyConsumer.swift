import Foundation

/// A request's own destination for its response body, instead of memory or a download file:
/// the hook a feature plugs a consumer into (a stream's buffer or closure, Features/Streaming;
/// WebSocket frames next). The request carries it from resolution through the pipeline to the
/// engine (`RawRequest.bodyConsumer`), which asks it for the sink of each transfer.
///
/// The pipeline's side needs no feature type either: the pipeline sets the consumer's rules
/// (`forPipeline`) and each hop its count (`forHop`), an engine that returns bodies whole has
/// the body handed over after it (`finish`), a retrier asks `isCommitted` and a cache
/// `RawRequest.bodyConsumer == nil`. A consumer that takes the head while the body goes on (an
/// async stream) has the engine step answer the chain with the head (`exchangeAnsweredAtHead`),
/// and whatever holds a place until the transfer ends waits for it (`afterTransfer`).
///
/// A class, immutable (a changed rule is a new consumer): requests hold it as one reference,
/// which their copies only retain (every send copies a request several times).
protocol ResponseBodyConsumer: AnyObject, Sendable {
    /// The sink one transfer of `request` hands its body to, on libcurl's engine.
    func makeSink(for request: RawRequest, configuration: Session.Configuration) -> any BodySink
    /// The consumer for a pipeline whose rules are these: whether a non-2xx status fails the
    /// send (so its body is kept, not handed over), and whether redirects are followed.
    func forPipeline(validatesStatus: Bool, followsRedirects: Bool) -> any ResponseBodyConsumer
    /// The consumer for a hop after `redirects` redirects (the head's metrics count them).
    func forHop(redirects: Int) -> any ResponseBodyConsumer
    /// After the exchange: a body an engine returned whole (a stub, a recording) is handed to
    /// the consumer now, as libcurl's engine did while it arrived.
    func finish(_ response: inout RawResponse)
    /// `true` once something reached the consumer's user that a retry would repeat.
    var isCommitted: Bool { get }
    /// For a consumer that takes the head before the body ended (an async stream): the engine's
    /// exchange of `request` (`perform`, which it runs), answered as soon as a streamed head
    /// arrived (data nil) while the transfer goes on; the transfer's end then reaches the
    /// consumer, not the chain. A head that does not stream (a redirect, a validated failure)
    /// answers at the transfer's end, as always. nil: the exchange is the engine's, awaited whole.
    nonisolated(nonsending) func exchangeAnsweredAtHead(
        _ request: RawRequest, control: TransferControl,
        perform: @escaping @Sendable (RawRequest, TransferControl) async -> RawResponse) async -> RawResponse?
    /// Runs `action` once the transfer whose head answered the chain ended (`true`); `false`
    /// (the action not kept) when no transfer goes on past the answer.
    func afterTransfer(_ action: @escaping @Sendable () -> Void) -> Bool
    /// Whether `other` consumes the same way (a request's notes are compared).
    func isEqual(to other: any ResponseBodyConsumer) -> Bool
    /// Hashes what `isEqual(to:)` compares.
    func hash(into hasher: inout Hasher)
}

extension ResponseBodyConsumer {
    func forPipeline(validatesStatus: Bool, followsRedirects: Bool) -> any ResponseBodyConsumer { self }
    func forHop(redirects: Int) -> any ResponseBodyConsumer { self }
    func finish(_ response: inout RawResponse) {}
    var isCommitted: Bool { false }
    nonisolated(nonsending) func exchangeAnsweredAtHead(
        _ request: RawRequest, control: TransferControl,
        perform: @escaping @Sendable (RawRequest, TransferControl) async -> RawResponse) async -> RawResponse? { nil }
    func afterTransfer(_ action: @escaping @Sendable () -> Void) -> Bool { false }
    func isEqual(to other: any ResponseBodyConsumer) -> Bool { self === other }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A response-body consumer as a value a request's notes hold (they are `Hashable`).
struct BodyConsumerNote: Sendable, Hashable {
    let consumer: any ResponseBodyConsumer

    static func == (lhs: BodyConsumerNote, rhs: BodyConsumerNote) -> Bool { lhs.consumer.isEqual(to: rhs.consumer) }
    func hash(into hasher: inout Hasher) { consumer.hash(into: &hasher) }
}
