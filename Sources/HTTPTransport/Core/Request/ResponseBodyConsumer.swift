import Foundation

/// A request's own destination for its response body, instead of memory or a download file:
/// the hook a feature plugs a consumer into (a stream's buffer or closure, Features/Streaming;
/// WebSocket frames next). The request carries it from resolution through the pipeline to the
/// engine (`RawRequest.bodyConsumer`), which asks it for the sink of each transfer.
protocol ResponseBodyConsumer: Sendable, Hashable {
    /// The sink one transfer of `request` hands its body to, on libcurl's engine.
    func makeSink(for request: RawRequest, configuration: Session.Configuration) -> any BodySink
}

extension ResponseBodyConsumer {
    /// Whether `other` is the same consumer (of the same type and equal).
    func isEqual(to other: any ResponseBodyConsumer) -> Bool { (other as? Self) == self }
}

/// A response-body consumer as a value a request's notes hold (they are `Hashable`).
struct BodyConsumerNote: Sendable, Hashable {
    let consumer: any ResponseBodyConsumer

    static func == (lhs: BodyConsumerNote, rhs: BodyConsumerNote) -> Bool { lhs.consumer.isEqual(to: rhs.consumer) }
    func hash(into hasher: inout Hasher) { consumer.hash(into: &hasher) }
}
