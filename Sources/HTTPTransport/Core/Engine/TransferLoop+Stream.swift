import CCurl
import Foundation

/// A streamed response's turn in each round of the loop (either mode): its head announced, its
/// chunks handed over, its time-outs checked, and a paused one resumed (`curl_easy_pause`
/// belongs to the thread running the rounds).
///
/// A stream is timed here rather than by libcurl's whole-transfer time-out, which would cut a
/// long stream: the request's time-out bounds the head, then the stall time-out the silence
/// (time paused by the consumer not counted). A transfer the consumer paused resumes once the
/// consumer wants more; taking chunks wakes the poll.
extension TransferLoop {
    func driveStreams() {
        for transfer in Array(streams.values) {
            guard let stream = transfer.state.stream else { continue }
            if let code = drive(stream, transfer) { remove(transfer, code: code) }
        }
    }

    /// One stream's turn; a code ends the transfer.
    private func drive(_ stream: StreamReceiver, _ transfer: LoopTransfer) -> CURLcode? {
        let (state, handle) = (transfer.state, transfer.handle)
        if stream.streamsBody, !stream.announced, state.storedError == nil {
            stream.announced = true
            if let error = stream.body.consumer.headArrived(head(of: transfer)) {
                state.storedError = error
                return CURLE_ABORTED_BY_CALLBACK
            }
        }
        guard stream.flushPending(state, handle: handle) else { return CURLE_ABORTED_BY_CALLBACK }
        if state.storedError == nil, let error = stream.expired(at: .now, started: transfer.started, url: state.requestURL) {
            state.storedError = error
            return CURLE_OPERATION_TIMEDOUT
        }
        // (The look comes after the hand-over above, and re-arms the consumer's wake-up.)
        if stream.isPaused, stream.body.consumer.resume() {
            // (Unpausing hands the held chunk to the write callback at once, which may pause again.)
            stream.isPaused = false
            stream.lastActivity = .now
            multi.unpause(handle.curl)
            resumed = true
            guard stream.flushPending(state, handle: handle) else { return CURLE_ABORTED_BY_CALLBACK }
        }
        return nil
    }

    /// The stream's response head, for its consumer.
    private func head(of transfer: LoopTransfer) -> RawResponse {
        let (state, request) = (transfer.state, transfer.request)
        let metrics = transfer.engine?.collectMetrics(transfer.handle, sentBody: request.sendsBody,
                                                      receivedStatus: state.statusCode != nil) ?? TransferMetrics()
        var head = RawResponse(request: request, statusCode: state.statusCode.map(HTTPStatusCode.init(rawValue:)),
                               headers: state.headers, metrics: metrics)
        head.metrics.redirectCount = state.stream?.body.redirects ?? 0
        return head
    }
}
