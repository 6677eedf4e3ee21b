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
    /// Each exchange in flight runs on a thread of its session's (see "Concurrency" in the
    /// README); the calling thread only waits. Don't call it from an interceptor of a send on
    /// the same session: the waiting call would hold one of the threads its requests need.
    public func send(requests: [any HTTPRequestEnvelope]) -> [Result] {
        guard !requests.isEmpty else { return [] }
        let results = FanOutResults(count: requests.count)
        let group = DispatchGroup()
        for (index, request) in requests.enumerated() {
            group.enter()
            (request.session ?? session).runOnTransferThread(for: request.endpoint) {
                let result = self.send(request: request, control: TransferControl())
                results.set(index, result)
                group.leave()
            }
        }
        group.wait()
        return results.values
    }
}

/// The results of one fan-out, written by the transfer threads and read by the caller, under a
/// lock both take (which ThreadSanitizer sees, unlike the group's hand-over).
private final class FanOutResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [HTTPTransport.Result?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: HTTPTransport.Result) { lock.withLock { results[index] = result } }

    var values: [HTTPTransport.Result] {
        lock.withLock {
            results.map { $0 ?? .failure(error: HTTPTransportError(code: .other, message: "The request was not sent.")) }
        }
    }
}
