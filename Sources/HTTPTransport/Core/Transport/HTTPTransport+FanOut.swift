import Foundation

/// Fan-out: many requests in flight together from one blocking call.
///
/// ```swift
/// let requests = ids.map { HTTPRequest(endpoint: "https://api.example.com/items/\($0)") }
/// for (id, result) in zip(ids, transport.send(requests: requests)) {
///     if case .failure(let error) = result { print(id, error.code) }
/// }
/// ```
extension HTTPTransport {
    /// Sends every request at once and waits for all of them; the results come in the order of
    /// `requests`, each exactly as `send(request:)` would give it (interceptors, retries,
    /// redirects, cache). At most the session's `maxConcurrentTransfers` are in flight; the rest
    /// wait in order, and a waiting request's time-out starts when it starts. A request's own
    /// `session` runs it on that session.
    ///
    /// The exchanges run on the session's transfer loop, as async sends do (see "Concurrency" in
    /// the README): none holds a thread while it waits, and the calling thread only waits. Don't
    /// call it from an interceptor of an async send of the same session: the waiting call would
    /// hold one of the session's executor threads while its requests need them.
    public func send(requests: [any HTTPRequestEnvelope]) -> [Result] {
        guard !requests.isEmpty else { return [] }
        let results = FanOutResults(count: requests.count)
        let context = TelemetryContext.current
        Task(executorPreference: session.executor) {
            await TelemetryContext.run(in: context) {
                await withTaskGroup(of: Void.self) { group in
                    for (index, request) in requests.enumerated() {
                        let session = request.session ?? self.session
                        // Places are taken in the order of `requests`.
                        _ = await session.transferGate.enter()
                        // (Always on the session's executor, even for a pipeline that cannot block
                        // (`SendPipeline.runsWithoutBlocking`): the caller waits on its thread, which
                        // may be one of the cooperative pool's, so the pool may have none to spare.)
                        group.addTask(executorPreference: session.executor) {
                            // (The place goes back when the transfer gate's step answered.)
                            let pipeline = SendPipeline.of(request, on: self)
                            results.set(index, await pipeline.runAsync(request, control: TransferControl(), place: .held))
                        }
                    }
                }
            }
        }
        return results.waitForAll()
    }
}

/// The results of one fan-out, written by its tasks and read by the waiting caller, under a
/// lock both take (which ThreadSanitizer sees).
private final class FanOutResults: @unchecked Sendable {
    private let condition = NSCondition()
    private var results: [HTTPTransport.Result?]  // guarded by `condition`
    private var missing: Int  // guarded by `condition`

    init(count: Int) {
        results = Array(repeating: nil, count: count)
        missing = count
    }

    func set(_ index: Int, _ result: HTTPTransport.Result) {
        condition.withLock {
            results[index] = result
            missing -= 1
            if missing == 0 { condition.broadcast() }
        }
    }

    /// Waits until every request has its result.
    func waitForAll() -> [HTTPTransport.Result] {
        condition.withLock {
            while missing > 0 { condition.wait() }
            return results.map { $0 ?? .failure(error: HTTPTransportError(code: .other, message: "The request was not sent.")) }
        }
    }
}
