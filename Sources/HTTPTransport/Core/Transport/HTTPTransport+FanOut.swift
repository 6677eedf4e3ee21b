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
        // Called from async code (a task runs on this thread), the caller holds one of the
        // cooperative pool's threads while it waits, and the pool may have none to spare: every
        // exchange then runs on its session's executor. Called from a plain thread, an exchange
        // none of whose steps can block stays on the pool (`SendPipeline.runsWithoutBlocking`).
        let callerIsATask = withUnsafeCurrentTask { $0 != nil }
        Task(executorPreference: callerIsATask ? session.executor : nil) {
            await TelemetryContext.run(in: context) {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<self.workers(for: requests) {
                        group.addTask {
                            while let index = results.take() {
                                results.set(index, await self.exchange(requests[index], onPool: !callerIsATask))
                            }
                        }
                    }
                }
            }
        }
        return results.waitForAll()
    }

    /// How many exchanges run at once: as many as the sessions involved let in flight (their
    /// `maxConcurrentTransfers` together), at most one per request. Each worker takes the next
    /// request in order as soon as its last one is answered, so places are taken in the order
    /// of `requests`, and a request waits without a task of its own (a task per request, and
    /// a turn on the session's executor to start each, cost a fan-out a third of its CPU).
    private func workers(for requests: [any HTTPRequestEnvelope]) -> Int {
        var limits: [ObjectIdentifier: Int] = [:]
        for request in requests {
            let session = request.session ?? self.session
            limits[ObjectIdentifier(session)] = session.transferGate.limit
        }
        return min(requests.count, limits.values.reduce(0, +))
    }

    /// One request of a fan-out, as `send(request:)` would give it: it waits for its place, then
    /// runs its steps, on the session's executor unless it may stay on the pool (`onPool`) and
    /// none of its steps can block.
    private func exchange(_ request: any HTTPRequestEnvelope, onPool: Bool) async -> Result {
        let session = request.session ?? self.session
        _ = await session.transferGate.enter()
        // (The place goes back when the transfer gate's step answered.)
        let pipeline = SendPipeline.of(request, on: self)
        if onPool, pipeline.runsWithoutBlocking {
            return await pipeline.runAsync(request, control: TransferControl(), place: .held)
        }
        return await withTaskExecutorPreference(session.executor) {
            await pipeline.runAsync(request, control: TransferControl(), place: .held)
        }
    }
}

/// The results of one fan-out, written by its tasks and read by the waiting caller, under a
/// lock both take (which ThreadSanitizer sees).
private final class FanOutResults: @unchecked Sendable {
    private let condition = NSCondition()
    private var results: [HTTPTransport.Result?]  // guarded by `condition`
    private var missing: Int  // guarded by `condition`

    private var taken = 0  // guarded by `condition`

    init(count: Int) {
        results = Array(repeating: nil, count: count)
        missing = count
    }

    /// The index of the next request to send, in order; nil once every one was taken.
    func take() -> Int? {
        condition.withLock {
            guard taken < results.count else { return nil }
            defer { taken += 1 }
            return taken
        }
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
