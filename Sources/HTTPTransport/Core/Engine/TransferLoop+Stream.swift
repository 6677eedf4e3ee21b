import CCurl
import Foundation

/// A paced body sink's turn in each round of the loop (either mode): a stream's head
/// announced, its chunks handed over, its time-outs checked, and a paused one resumed
/// (`curl_easy_pause` belongs to the thread running the rounds). What a turn does is the
/// sink's (`PacedBodySink.drive`; a stream's is `StreamReceiver`, in Features/Streaming).
extension TransferLoop {
    func driveStreams() {
        for transfer in Array(streams.values) {
            guard let sink = transfer.state.pacedSink else { continue }
            let turn = SinkTurn(handle: transfer.handle, state: transfer.state, request: transfer.request,
                                engine: transfer.engine, started: transfer.started, loop: self)
            if let stop = sink.drive(turn) { remove(transfer, code: stop.code) }
        }
    }

    /// Resumes a transfer its sink paused; the next poll only looks (libcurl's run-now timer is
    /// not counted on to wake it).
    func resume(_ handle: EasyHandle) {
        multi.unpause(handle.curl)
        resumed = true
    }
}
