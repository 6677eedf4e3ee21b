import Foundation

extension Session {
    /// The network below the cache for an async send: the per-origin step, when configured,
    /// then the engine, awaited without holding a thread.
    func awaitNetwork(_ request: RawRequest, control: TransferControl, telemetry: SendTelemetry) async -> RawResponse {
        guard let originGuard else { return await awaitEngine(request, control: control) }
        return await originGuard.send(request, control: control, telemetry: telemetry) {
            await self.awaitEngine($0, control: control)
        }
    }

    /// The engine's exchange: on the session's transfer loop for libcurl's engine; another
    /// engine (a stub, a replay, your own) may block, so it runs on one of the session's
    /// transfer threads.
    private func awaitEngine(_ request: RawRequest, control: TransferControl) async -> RawResponse {
        if let loopEngine { return await loopEngine.executeOnLoop(request, control: control) }
        let engine = engine
        return await onTransferThread(for: request.url.absoluteString) { engine.execute(request, control: control) }
    }

    /// Runs `body` on one of the session's transfer threads and returns its value, the task
    /// suspended meanwhile. The value crosses under a lock the task takes (`ThreadResult`).
    func onTransferThread<Value: Sendable>(for endpoint: String, _ body: @escaping @Sendable () -> Value) async -> Value {
        let box = ThreadResult<Value>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            runOnTransferThread(for: endpoint) {
                box.set(body())
                continuation.resume()
            }
        }
        guard let value = box.value else { preconditionFailure("a transfer thread ended without its value") }
        return value
    }
}

/// A value handed from a transfer thread to a task, under a lock both take.
final class ThreadResult<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    func set(_ value: Value) { lock.withLock { stored = value } }
    var value: Value? { lock.withLock { stored } }
}
