import Foundation

/// The async bridge: `try await transport.send(request)` from Swift concurrency.
///
/// A send blocks a thread for the whole exchange (libcurl's easy interface), so it never runs on
/// the cooperative thread pool: it runs on the library's own transfer threads (see
/// `TransferThreads`, one pool per session), and the awaiting task is suspended meanwhile. Cancelling the task cancels
/// the transfer (through a `CancellationHandle`), and the call throws `.cancelled` promptly.
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
    /// throws why there is none. `progress` (optional) is called on the transfer thread with the
    /// bytes moved so far; return `false` to cancel. Cancelling the task cancels the transfer
    /// (`.cancelled`).
    public func send(
        _ request: some HTTPRequestEnvelope,
        progress: (@Sendable (TransferProgress) -> Bool)? = nil
    ) async throws(HTTPTransportError) -> HTTPResponse {
        try await result(for: request, progress: progress).get()
    }

    /// The send as a `Result`, on a transfer thread.
    func result(for request: some HTTPRequestEnvelope, progress: (@Sendable (TransferProgress) -> Bool)?) async -> Result {
        let cancellation = CancellationHandle()
        let control = TransferControl(progress: progress, cancellation: cancellation)
        let job = AsyncSendJob(cancelledError: HTTPTransportError(
            code: .cancelled, message: "The task was cancelled.", url: request.endpoint))
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                guard job.install(continuation) else { return }  // already cancelled: resumed
                (request.session ?? self.session).runOnTransferThread(for: request.endpoint) {
                    guard job.start() else { return }  // cancelled while queued: resumed
                    job.finish(self.send(request: request, control: control))
                }
            }
        } onCancel: {
            cancellation.cancel()  // a running transfer stops promptly and returns .cancelled
            job.cancel()           // one not started yet is answered at once
        }
        return job.result
    }
}
