import Foundation

extension HTTPEngine {
    /// The default for an engine without a way of its own to wait: `execute` runs on a thread
    /// made for blocking work, the task suspended meanwhile (never one of Swift's cooperative
    /// threads). In a session's send that is one of the session's transfer threads (at most
    /// `maxConcurrentTransfers`, `maxConnectionsPerHost` per origin); called directly, one of a
    /// process-wide pool's. The caller's trace context goes along.
    public func executeAsync(_ request: RawRequest, control: TransferControl) async -> RawResponse {
        await executeOnThread(request, control: control)
    }

    /// `execute` on a transfer thread (the default `executeAsync`, which an engine that has its
    /// own can still fall back on).
    func executeOnThread(_ request: RawRequest, control: TransferControl) async -> RawResponse {
        let threads = TransferThreads.current ?? TransferThreads.shared
        return await threads.value(for: request.urlString) { self.execute(request, control: control) }
    }
}

extension TransferThreads {
    /// The threads of engines called outside a session's send.
    static let shared = TransferThreads(maxThreads: 64, idleTimeout: 30)

    /// The session's transfer threads while it awaits its engine (`Session.executeAsync`): a
    /// task value rather than a field of `TransferControl`, which every blocking send copies.
    @TaskLocal static var current: TransferThreads?

    /// Runs `body` on one of the threads, counted against the origin of `endpoint`, and returns
    /// its value, the task suspended meanwhile. The thread does not inherit the caller's task
    /// values: the caller's trace context goes along. The value crosses under a lock the task
    /// takes (`ThreadResult`).
    func value<Value: Sendable>(for endpoint: String, _ body: @escaping @Sendable () -> Value) async -> Value {
        let context = TelemetryContext.current
        let box = ThreadResult<Value>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            run(origin: Self.origin(of: endpoint)) {
                box.set(TelemetryContext.run(in: context, body))
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
