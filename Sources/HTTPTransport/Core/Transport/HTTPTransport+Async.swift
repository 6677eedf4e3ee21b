import Foundation

/// The async bridge: `try await transport.send(request)` from Swift concurrency.
///
/// The exchange runs on the session's transfer loop (one libcurl multi handle and one thread per
/// session), and the awaiting task holds no thread meanwhile: thousands of sends can be in flight
/// at once. Interceptors, redirects, the cache and retries run in the task, as the blocking send
/// runs them on its thread. Cancelling the task cancels the transfer, and the call throws
/// `.cancelled` promptly.
///
/// ```swift
/// let transport = HTTPTransport()
/// do {
///     let response = try await transport.send(HTTPRequest(endpoint: "http://127.0.0.1:8080/user"))
///     print(try response.getJSONDictionary() ?? [:])
/// } catch {                                      // error is an HTTPTransportError
///     print(error.httpStatusCode?.rawValue ?? 0, error.message)
/// }
/// ```
///
/// The synchronous `send(request:) -> Result` keeps its name and meaning in every context: an
/// `async` overload with the same label would be preferred inside async code (e.g.
/// `Task { transport.send(request: r) }`) and break such callers, so the async spelling has no label.
extension HTTPTransport {
    /// Sends any request type without blocking the caller's thread; returns the response or
    /// throws why there is none. `progress` (optional) is called with the bytes moved so far,
    /// in order, on one of a few threads the session keeps for progress handlers (never on the
    /// transfer loop's thread, so a handler that blocks delays only progress); return `false`
    /// to cancel. Cancelling the task cancels the transfer (`.cancelled`). A send that
    /// waits for a place among the session's `maxConcurrentTransfers` fails with `.timeout` once
    /// its request's `timeout` has passed since the call.
    public func send(
        _ request: some HTTPRequestEnvelope,
        progress: (@Sendable (TransferProgress) -> Bool)? = nil
    ) async throws(HTTPTransportError) -> HTTPResponse {
        try await result(for: request, progress: progress).get()
    }

    /// The send as a `Result`: it waits for a place among the session's
    /// `maxConcurrentTransfers`, then runs the pipeline in this task. The wait is bounded by the
    /// request's `timeout`, counted from this call (`.timeout` when it runs out); once the send
    /// has its place, its time-out covers the exchange in full, as for a send that never waited.
    ///
    /// It and the async functions it calls down to the transfer loop are
    /// `nonisolated(nonsending)`: they run where their caller runs (here always a nonisolated
    /// context: the public `send`, a stream's or a WebSocket's task), so that entering each
    /// costs no executor check (`swift_task_switch`, some thirty per send otherwise).
    ///
    /// Compiled for `HTTPRequest` too: the public `send` is generic and called from other
    /// modules, so a send would otherwise resolve its request through dynamic casts that copy
    /// it twice (the blocking `send(request:)` takes the type itself).
    @_specialize(where Request == HTTPRequest)
    nonisolated(nonsending) func result<Request: HTTPRequestEnvelope>(
        for request: Request, progress: (@Sendable (TransferProgress) -> Bool)?) async -> Result {
        let session = request.session ?? self.session
        let cancellation = CancellationHandle()
        let deadline = GateDeadline.after(request.timeout)
        let relay = progress.map { ProgressRelay($0, cancellation: cancellation, threads: session.progressThreads) }
        var control = TransferControl(cancellation: cancellation)
        if let relay { control.progress = { relay.report($0) } }
        let pipeline = SendPipeline.of(request, on: self)
        // The steps run on the session's executor, where an interceptor that blocks holds none
        // of the cooperative pool's threads; a send none of whose steps can block stays where
        // it is and saves the two hops there and back (`SendPipeline.runsWithoutBlocking`).
        // (Without a preference, not even `withTaskExecutorPreference(nil)`: it costs frames.)
        guard pipeline.runsWithoutBlocking else {
            return await withTaskExecutorPreference(session.executor) {
                await cancellable(request, through: pipeline, deadline: deadline, control: control, relay: relay)
            }
        }
        return await cancellable(request, through: pipeline, deadline: deadline, control: control, relay: relay)
    }

    /// The pipeline's run, cancelled with the task.
    private nonisolated(nonsending) func cancellable(_ request: some HTTPRequestEnvelope, through pipeline: SendPipeline,
                             deadline: GateDeadline, control: TransferControl, relay: ProgressRelay?) async -> Result {
        await withTaskCancellationHandler {
            // (The transfer gate's step waits for a place until `deadline`.)
            let result = await pipeline.runAsync(request, control: control, place: .waits(until: deadline))
            await relay?.drained()
            return result
        } onCancel: {
            control.cancellation?.cancel()  // a running transfer stops promptly and returns .cancelled
        }
    }
}
