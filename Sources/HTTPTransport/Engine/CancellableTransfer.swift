import CCurl
import Foundation

/// Runs a transfer through the handle's own multi handle, so another thread can cut it short:
/// `CancellationHandle.cancel()` wakes the poll at once, the transfer is removed and its
/// connection closed (libcurl never reuses a connection cut mid-transfer).
enum CancellableTransfer {
    static func perform(_ handle: EasyHandle, cancellation: CancellationHandle, state: TransferState) -> CURLcode {
        guard let multi = handle.multi() else { return curl_easy_perform(handle.curl) }
        if cancellation.isCancelled { return cancelled(state) }
        guard curl_multi_add_handle(multi, handle.curl) == CURLM_OK else { return curl_easy_perform(handle.curl) }
        let waker = MultiWaker(multi: multi)
        let token = cancellation.addWaker { waker.wake() }
        defer {
            cancellation.removeWaker(token)
            curl_multi_remove_handle(multi, handle.curl)
        }
        var running: Int32 = 1
        while true {
            guard curl_multi_perform(multi, &running) == CURLM_OK else { return CURLE_OUT_OF_MEMORY }
            if running == 0 { break }
            if cancellation.isCancelled { return cancelled(state) }
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
            if cancellation.isCancelled { return cancelled(state) }
        }
        var result = CURLE_OK
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            if message.pointee.msg == CURLMSG_DONE { result = message.pointee.data.result }
        }
        return result
    }

    private static func cancelled(_ state: TransferState) -> CURLcode {
        if state.storedError == nil {
            state.storedError = HTTPTransportError(code: .cancelled, message: "The transfer was cancelled.", url: state.requestURL)
        }
        return CURLE_ABORTED_BY_CALLBACK
    }
}

/// The multi handle's wake-up, callable from the cancelling thread.
private struct MultiWaker: @unchecked Sendable {
    let multi: UnsafeMutableRawPointer
    func wake() { _ = curl_multi_wakeup(multi) }
}
