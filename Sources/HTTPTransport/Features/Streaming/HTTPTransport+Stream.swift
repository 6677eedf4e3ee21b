import Foundation

extension HTTPTransport {
    /// Sends a request and returns as soon as the response head arrived, with the body still
    /// coming: read it with `for try await chunk in stream.body` (or `stream.lines`).
    ///
    /// The head travels up the send's steps as their answer while the body goes on, so every
    /// step sees it before you do: request interceptors, redirects and their hop rules run as for
    /// `send`; validation and the response interceptors run once, on the head (a `RawResponse`
    /// whose `data` is nil), and so does your `HTTPSendStep`, which may reject it (this call then
    /// throws its error and the transfer stops). Under default validation a status other than
    /// 2xx throws `.httpStatus` with the body's first 64 KiB. A retrier may repeat the exchange
    /// until the head was handed to you: the repeated exchange's transfer is stopped and the
    /// next one streams into an empty body. The request's `timeout` bounds
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
        let pipeline = SendPipeline.of(streamed, on: self)
        // The stream waits for its place among the session's transfers until its time-out, and
        // holds it until its body ends (`TransferGateStep`). The steps run on the session's
        // executor (a step may block); the chain answers with the head (`StreamChannel.exchange`).
        let deadline = GateDeadline.after(streamed.timeout)
        let result = await withTaskExecutorPreference(session.executor) {
            await withTaskCancellationHandler {
                await pipeline.runAsync(streamed, control: control, place: .waits(until: deadline))
            } onCancel: {
                channel.cancel()
            }
        }
        switch result {
        case .failure(let error):
            channel.cancel()
            throw error
        case .success(let response):
            channel.handOver()
            var head = response.raw
            // (Without its streaming body, which refers to the channel.)
            head.request.streaming = nil
            return HTTPResponseStream(head: head, channel: channel)
        }
    }
}
