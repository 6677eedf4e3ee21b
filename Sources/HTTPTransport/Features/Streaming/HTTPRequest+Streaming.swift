import Foundation

extension HTTPRequest {
    /// A copy whose response body goes to `handler`, chunk by chunk, as it arrives, instead of
    /// into memory: the body of an NDJSON feed, a log tail or an export that never ends, on the
    /// sending thread and in order. Return `false` to stop the transfer (the send then fails with
    /// `.cancelled`). The response's `body` is nil. With a non-2xx status under default
    /// validation the handler is not called and the error carries the body's first 64 KiB.
    ///
    /// The request's `timeout` bounds the wait for the response head; after it only the
    /// session's `stallTimeout` (60 s when it has none) ends a silent stream. `maxResponseSize`
    /// does not apply and the cache is not used.
    ///
    /// ```swift
    /// let result = transport.send(request: request.streaming { chunk in
    ///     parser.feed(chunk)
    ///     return !parser.isDone
    /// })
    /// ```
    public func streaming(_ handler: @escaping @Sendable (Data) -> Bool) -> HTTPRequest {
        streamingBody(StreamingBody(consumer: ClosureConsumer(handler)))
    }
}

extension DataUploadHTTPRequest {
    /// A copy whose response body goes to `handler` as it arrives (see `HTTPRequest.streaming(_:)`).
    public func streaming(_ handler: @escaping @Sendable (Data) -> Bool) -> DataUploadHTTPRequest {
        streamingBody(StreamingBody(consumer: ClosureConsumer(handler)))
    }
}

extension FileUploadHTTPRequest {
    /// A copy whose response body goes to `handler` as it arrives (see `HTTPRequest.streaming(_:)`).
    public func streaming(_ handler: @escaping @Sendable (Data) -> Bool) -> FileUploadHTTPRequest {
        streamingBody(StreamingBody(consumer: ClosureConsumer(handler)))
    }
}

extension HTTPRequestEnvelope {
    /// A copy whose response body streams to `body`'s consumer (a request type of a user's own
    /// cannot carry one: it is returned unchanged).
    func streamingBody(_ body: StreamingBody) -> Self {
        changingNotes { $0.streaming = body }
    }
}

extension RequestNotes {
    /// Where the response body streams to, when it does (`streaming(_:)`, `HTTPTransport.stream(_:)`).
    var streaming: StreamingBody? {
        get { (bodyConsumer?.consumer as? StreamingBodyHook)?.body }
        set { bodyConsumer = newValue.map { BodyConsumerNote(consumer: StreamingBodyHook($0)) } }
    }
}

extension RawRequest {
    /// Where the response body streams to instead of memory (`HTTPRequest.streaming(_:)`,
    /// `HTTPTransport.stream(_:)`): the request's body consumer when it is a stream's.
    var streaming: StreamingBody? {
        get { (bodyConsumer as? StreamingBodyHook)?.body }
        set { bodyConsumer = newValue.map(StreamingBodyHook.init) }
    }
}
