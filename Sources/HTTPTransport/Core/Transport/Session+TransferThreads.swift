import Foundation

extension Session {
    /// The engine's exchange in an async send (`HTTPEngine.executeAsync`): libcurl's on the
    /// session's transfer loop; another engine's, when it has no way of its own, on the session's
    /// transfer threads (`asyncThreads`).
    nonisolated(nonsending) func executeAsync(_ request: RawRequest, control: TransferControl) async -> RawResponse {
        // libcurl's engine with its loop needs no threads: called directly, without the task
        // value (whose push and pop, and the closure's frame, each send would pay).
        if let loopEngine { return await loopEngine.exchangeOnLoop(request, control: control) }
        return await TransferThreads.$current.withValue(asyncThreads) { await engine.executeAsync(request, control: control) }
    }
}
