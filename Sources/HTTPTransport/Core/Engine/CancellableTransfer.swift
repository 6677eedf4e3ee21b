import CCurl
import Foundation

/// Runs a transfer through the handle's own multi handle, so another thread can cut it short and
/// a stream can pause: `CancellationHandle.cancel()` wakes the poll at once, the transfer is
/// removed and its connection closed (libcurl never reuses a connection cut mid-transfer).
///
/// A paced body sink (`TransferState.pacedSink`: a stream) is timed here rather than by
/// libcurl's whole-transfer time-out, which would cut a long stream: the request's time-out
/// bounds the head, then the stall time-out the silence (time paused by the consumer not counted). A transfer the consumer
/// paused resumes on this thread (`curl_easy_pause` belongs to the performing thread) once the
/// consumer wants more; taking chunks wakes the poll.
struct CancellableTransfer: TransferDriver {
    func perform(_ transfer: CurlTransfer, request: RawRequest, engine: CurlEngine) -> CURLcode {
        Self.perform(transfer.handle, cancellation: transfer.state.control.cancellation, state: transfer.state,
                     request: request, engine: engine)
    }

    static func perform(_ handle: EasyHandle, cancellation: CancellationHandle?, state: TransferState,
                        request: RawRequest, engine: CurlEngine) -> CURLcode {
        guard let multi = handle.multi() else { return curl_easy_perform(handle.curl) }
        if cancellation?.isCancelled == true { return state.cancelled() }
        guard curl_multi_add_handle(multi, handle.curl) == CURLM_OK else { return curl_easy_perform(handle.curl) }
        let waker = MultiWaker(multi: multi)
        let token = cancellation?.addWaker { waker.wake() }
        state.pacedSink?.setWaker { waker.wake() }
        defer {
            state.pacedSink?.setWaker(nil)
            if let token { cancellation?.removeWaker(token) }
            curl_multi_remove_handle(multi, handle.curl)
        }
        let started = ContinuousClock.now
        var running: Int32 = 1
        while true {
            guard curl_multi_perform(multi, &running) == CURLM_OK else { return CURLE_OUT_OF_MEMORY }
            if let stream = state.pacedSink, let code = drive(stream, handle: handle, state: state, request: request,
                                                           engine: engine, started: started) {
                return code
            }
            if running == 0 {
                // The bytes of the last round go out even to a full buffer: the transfer is over.
                if let stream = state.pacedSink, !stream.flushPending(state, handle: handle, final: true) {
                    return CURLE_ABORTED_BY_CALLBACK
                }
                break
            }
            if cancellation?.isCancelled == true { return state.cancelled() }
            let wait = state.pacedSink?.nextCheck(at: .now, started: started) ?? .seconds(1)
            _ = curl_multi_poll(multi, nil, 0, Int32((wait / .milliseconds(1)).rounded(.up)), nil)
            if cancellation?.isCancelled == true { return state.cancelled() }
        }
        var result = CURLE_OK
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            if message.pointee.msg == CURLMSG_DONE { result = message.pointee.data.result }
        }
        return result
    }
}

/// The multi handle's wake-up, callable from the cancelling thread.
private struct MultiWaker: @unchecked Sendable {
    let multi: UnsafeMutableRawPointer
    func wake() { _ = curl_multi_wakeup(multi) }
}
