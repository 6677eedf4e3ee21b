import Foundation

extension Session {
    /// The engine's exchange in an async send (`HTTPEngine.executeAsync`): libcurl's on the
    /// session's transfer loop; another engine's, when it has no way of its own, on the session's
    /// transfer threads (`asyncThreads`).
    func executeAsync(_ request: RawRequest, control: TransferControl) async -> RawResponse {
        await TransferThreads.$current.withValue(asyncThreads) { await engine.executeAsync(request, control: control) }
    }
}
