import Foundation

extension HTTPTransport {
    /// Sends a request and returns as soon as the response head arrived, with the body still
    /// coming: read it with `for try await chunk in stream.body` (or `stream.lines`).
    ///
    /// Request interceptors, redirects and their hop rules run as for `send`; response
    /// interceptors see the head (a `RawResponse` whose `data` is nil). Under default validation
    /// a status other than 2xx throws `.httpStatus` with the body's first 64 KiB. A retrier may
    /// repeat the exchange only until the head was handed over. The request's `timeout` bounds
    /// the wait for the head (a place among the session's `maxConcurrentTransfers` included);
    /// after it, the session's `stallTimeout` (60 s when it sets none) ends a stream that is
    /// silent, or that its reader leaves unread, that long. The cache is not used and
    /// `maxResponseSize` does not apply.
    ///
    /// The transfer runs on the session's transfer loop (counted in its `maxConcurrentTransfers`
    /// until the body ends); cancelling the task or dropping the stream stops it.
    public func stream(_ request: some HTTPRequestEnvelope) async throws(HTTPTransportError) -> HTTPResponseStream {
        let channel = StreamChannel(url: request.endpoint)
        let streamed = request.streamingBody(StreamingBody(consumer: channel))
        guard streamed.recordedNotes.streaming != nil else {
            throw HTTPTransportError(code: .other, message: "stream(_:) takes HTTPRequest, DataUploadHTTPRequest or FileUploadHTTPRequest.",
                                     url: request.endpoint)
        }
        let control = TransferControl(cancellation: channel.cancellation)
        let session = request.session ?? session
        // The stream holds a place among the session's transfers until its body ends.
        let deadline = GateDeadline.after(streamed.timeout)
        Task(executorPreference: session.executor) {
            let pipeline = SendPipeline.of(streamed, on: self)
            channel.finish(await pipeline.runAsync(streamed, control: control, place: .waits(until: deadline)))
        }
        var head = try await channel.awaitHead()
        SendPipeline.of(streamed, on: self).conclude(&head)
        if var error = head.error {
            channel.cancel()
            if error.url == nil { error.url = head.request.url.absoluteString }
            throw error
        }
        return HTTPResponseStream(head: head, channel: channel)
    }
}

extension SendPipeline {
    /// The last steps of an exchange, for a head handed to the caller of `HTTPTransport.stream(_:)`:
    /// validate, then the response interceptors.
    func conclude(_ response: inout RawResponse) {
        validate(&response)
        intercept(&response)
    }
}
