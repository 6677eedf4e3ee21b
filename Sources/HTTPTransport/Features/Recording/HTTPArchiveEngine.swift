import Foundation

/// An engine that answers from a HAR 1.2 archive instead of the network: one written by
/// `HTTPArchiveRecorder`, or exported from a browser's network panel (Chrome, Firefox) or a
/// proxy. Give it to a session and the same code runs offline, against the recorded exchanges.
///
/// Each request is answered with the first entry not used yet whose method and URL are the
/// request's, in recorded order, so an exchange recorded twice is answered twice, in turn.
/// URLs match on scheme, host, port and path, with the query parameters in any order; a value
/// recorded as `<redacted>` matches any value (user info is ignored). A request that matches
/// no unused entry fails with `.other`, naming its method and URL. An entry recorded without a
/// response (status 0) fails again the same way, with its recorded code when it has one.
///
/// The pipeline still runs as for the network: interceptors, redirects (each hop is its own
/// entry), validation. Request bodies are not compared; downloads get the body in memory.
///
/// ```swift
/// let engine = try HTTPArchiveEngine(contentsOf: URL(fileURLWithPath: "session.har"))
/// let transport = HTTPTransport(session: Session(engine: engine))
/// ```
///
/// Copies share which entries have been used; make a new engine to replay from the start.
public struct HTTPArchiveEngine: HTTPEngine {
    private let exchanges: [RecordedExchange]
    private let used: Locked<[Bool]>

    /// An engine replaying the archive in `file`. Throws `.fileIO` when the file cannot be read
    /// and `.badResponse` when it is not a HAR archive.
    public init(contentsOf file: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw HTTPTransportError(code: .fileIO, message: "The HTTP archive \(file.path) could not be read: \(error.localizedDescription)",
                                     underlyingError: error)
        }
        do {
            try self.init(data: data)
        } catch let error as HTTPTransportError {
            var error = error
            error.message = "\(file.path): \(error.message)"
            throw error
        }
    }

    /// An engine replaying the archive in `data` (HAR JSON). Throws `.badResponse` when it is not
    /// a HAR archive: not JSON, no `log.entries` list, or an entry without a request method, an
    /// absolute URL or a response status.
    public init(data: Data) throws {
        exchanges = try RecordedExchange.entries(of: data)
        used = Locked(Array(repeating: false, count: exchanges.count))
    }

    /// The first unused matching entry's response, or a failure naming the request.
    public func execute(_ request: RawRequest, control: TransferControl) -> RawResponse {
        let method = request.method.rawValue
        guard let sent = ArchiveURLPattern(request.url.absoluteString) else { return unmatched(request, sent: nil, recorded: 0) }
        let candidates = exchanges.indices.filter { exchanges[$0].method == method && exchanges[$0].url.matches(sent) }
        let index: Int? = used.withLock { used in
            guard let index = candidates.first(where: { !used[$0] }) else { return nil }
            used[index] = true
            return index
        }
        guard let index else { return unmatched(request, sent: sent, recorded: candidates.count) }
        return response(to: request, from: exchanges[index])
    }

    private func response(to request: RawRequest, from exchange: RecordedExchange) -> RawResponse {
        if let code = exchange.failure {
            return RawResponse(request: request, error: HTTPTransportError(
                code: code, message: "\(exchange.failureMessage) (replayed from the archive)", url: request.url.absoluteString),
                metrics: exchange.metrics)
        }
        return RawResponse(request: request, statusCode: HTTPStatusCode(rawValue: exchange.status), headers: exchange.headers,
                           data: exchange.body, metrics: exchange.metrics)
    }

    /// The failure for a request no unused entry answers: why, and the entries recorded for the
    /// same resource with another query, which is the usual cause.
    private func unmatched(_ request: RawRequest, sent: ArchiveURLPattern?, recorded: Int) -> RawResponse {
        let url = request.url.absoluteString
        var reason = recorded == 0
            ? "the archive has no entry with this method and URL (\(exchanges.count) entries)"
            : "all \(recorded) entries with this method and URL were used already"
        if recorded == 0, let sent {
            let near = exchanges.filter { $0.method == request.method.rawValue && $0.url.hasSameResource(as: sent) }
            if !near.isEmpty {
                reason += "; recorded with other query parameters: " + near.prefix(3).map(\.display).joined(separator: ", ")
            }
        }
        return RawResponse(request: request, error: HTTPTransportError(
            code: .other, message: "No recorded exchange for \(request.method.rawValue) \(url): \(reason).", url: url))
    }
}
