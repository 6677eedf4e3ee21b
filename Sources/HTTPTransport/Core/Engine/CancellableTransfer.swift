import CCurl
import Foundation

/// The driver of a blocking transfer that another thread may cancel or that streams (paused and
/// resumed by its consumer): the transfer loop run inline on the calling thread, on the handle's
/// own multi handle (`TransferLoop.run`). `CancellationHandle.cancel()` wakes the poll at once,
/// the transfer is removed and its connection closed (libcurl never reuses a connection cut
/// mid-transfer).
struct CancellableTransfer: TransferDriver {
    func perform(_ transfer: CurlTransfer, request: RawRequest, engine: CurlEngine) -> CURLcode {
        guard let multi = transfer.handle.multi() else { return curl_easy_perform(transfer.handle.curl) }
        let loop = TransferLoop(inlineOn: CurlMulti(borrowing: multi))
        return loop.run(LoopTransfer(handle: transfer.handle, state: transfer.state, request: request,
                                     engine: transfer.state.pacedSink != nil ? engine : nil, loop: loop))
    }
}
