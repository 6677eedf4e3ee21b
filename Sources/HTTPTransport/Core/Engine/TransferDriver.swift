import CCurl

/// Runs a prepared transfer to its end on the calling thread and says how it ended: the seam
/// between preparing an easy handle (`CurlEngine.prepare`) and reading what it received
/// (`CurlEngine.response`). A blocking send picks one of the two below (the second runs the
/// transfer loop inline, `CancellableTransfer`); async sends, fan-outs and streams run theirs on
/// the session's transfer loop instead (`TransferLoop.perform`, `CurlEngine+Loop.swift`),
/// between the same two steps.
protocol TransferDriver {
    func perform(_ transfer: CurlTransfer, request: RawRequest, engine: CurlEngine) -> CURLcode
}

extension CurlEngine {
    /// The driver of a blocking transfer: one that can be interrupted when another thread may
    /// cancel it or its sink is paced (a stream, paused and resumed by its consumer), else the plain one.
    static func driver(for state: TransferState) -> any TransferDriver {
        state.control.cancellation != nil || state.pacedSink != nil ? CancellableTransfer() : EasyPerformDriver()
    }
}

/// `curl_easy_perform`: the transfer runs until it ends or one of its time-outs ends it.
struct EasyPerformDriver: TransferDriver {
    func perform(_ transfer: CurlTransfer, request: RawRequest, engine: CurlEngine) -> CURLcode {
        curl_easy_perform(transfer.handle.curl)
    }
}
