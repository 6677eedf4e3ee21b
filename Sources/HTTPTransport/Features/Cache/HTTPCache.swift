import Foundation
import Logging

/// An RFC 9111 *private* HTTP cache: fresh responses are served without the network, stale
/// ones with a validator are revalidated (`If-None-Match` / `If-Modified-Since`; a `304` serves
/// the stored body with updated headers), and unsafe methods invalidate what they change. Set it
/// on a session; share one cache between sessions and threads as you like.
///
/// ```swift
/// var configuration = Session.Configuration()
/// configuration.cache = HTTPCache(directory: URL(fileURLWithPath: "/var/cache/my-daemon"), maxBytes: 50 << 20)
/// let transport = HTTPTransport(session: Session(configuration: configuration))
/// let response = try transport.send(request: HTTPRequest(endpoint: "https://api.example.com/config")).get()
/// print(response.metrics.cacheStatus)   // .miss, then .hit while fresh, .revalidated after a 304
/// ```
///
/// What it stores: complete responses to GET requests without a body, keyed by URL, by the
/// values of the session's `credentialHeaders`, `Cookie` and the URL's user info (as a salted
/// SHA-256 digest: a response stored for one token is never served to another or to none, and no
/// credential is written in clear), by the session's connection (Unix socket, `resolveOverrides`,
/// proxy, client certificate, trust roots, pins and address policy: sessions that reach a URL
/// differently never share a response) and by the request fields the response's `Vary` names. Downloads to a file,
/// requests with a body and requests with `If-Match`, `If-Unmodified-Since` or `If-Range` pass
/// through untouched; a request's own `If-None-Match`, `If-Modified-Since` or single byte
/// `Range` is answered from a fresh stored response (304, 206) when it can be, else sent as it
/// is (`CachedAnswer`). A stale response within its `stale-while-revalidate` window is served at
/// once and revalidated in the background. `Set-Cookie` is not stored. Request `Cache-Control` (`no-cache`, `no-store`,
/// `max-age`, `max-stale`, `min-fresh`, `only-if-cached`) is honoured; `only-if-cached` with
/// nothing usable stored fails (status 504) without using the network.
///
/// With a `directory`, entries survive restarts and several processes may share the directory;
/// without one, they live in memory. Either way at most `maxBytes` are kept, the least recently
/// used evicted first. A damaged entry file reads as a miss and is removed.
public final class HTTPCache: Sendable {
    /// Where entries are kept on disk, or nil for memory only.
    public let directory: URL?
    /// The most bytes kept (bodies, headers and a small overhead per entry).
    public let maxBytes: Int64

    private let storage: any CacheStorage
    private let digester: FieldDigester
    /// Why the directory was refused (the cache then stays out of every send), or nil.
    let refusal: String?
    /// Wall-clock seconds since 1970 (injectable for tests).
    private let clock: @Sendable () -> Double
    /// The entries being revalidated in the background (`stale-while-revalidate`).
    private let backgroundRevalidations = BackgroundRevalidations()

    /// The label of the logger that reports a refused directory.
    static let loggerLabel = "HTTPTransport.Cache"

    /// A cache in `directory` (created, mode 0700, when missing), or in memory when nil, of at
    /// most `maxBytes`. A directory that another user owns or may write to, or whose `.salt` is
    /// not a private file of this user, is refused: the cache logs a warning and caches nothing
    /// (every send goes to the network, `cacheStatus` `.disabled`), since anything read from
    /// it could have been planted.
    public convenience init(directory: URL? = nil, maxBytes: Int64 = 50 << 20) {
        self.init(directory: directory, maxBytes: maxBytes, clock: { Date().timeIntervalSince1970 })
    }

    /// A cache whose entries `storage` keeps (`HTTPCacheStorage`), an entry larger than
    /// `maxBytes` never stored; the storage bounds the rest (its entries expire).
    public convenience init(storage: some HTTPCacheStorage, maxBytes: Int64 = 50 << 20) {
        let clock: @Sendable () -> Double = { Date().timeIntervalSince1970 }
        self.init(storage: CustomCacheStorage(storage, maxBytes: maxBytes, clock: clock), maxBytes: maxBytes, clock: clock)
    }

    init(storage: any CacheStorage, maxBytes: Int64, clock: @escaping @Sendable () -> Double) {
        directory = nil
        self.maxBytes = maxBytes
        self.clock = clock
        self.storage = storage
        refusal = nil
        digester = FieldDigester(salt: storage.salt)
    }

    init(directory: URL?, maxBytes: Int64, clock: @escaping @Sendable () -> Double,
         logger: Logger = Logger(label: HTTPCache.loggerLabel)) {
        self.directory = directory
        self.maxBytes = maxBytes
        self.clock = clock
        guard let directory else {
            storage = MemoryCacheStorage(maxBytes: maxBytes)
            refusal = nil
            digester = FieldDigester(salt: storage.salt)
            return
        }
        do {
            storage = try DirectoryCacheStorage(directory: directory, maxBytes: maxBytes)
            refusal = nil
        } catch {
            let message = "HTTPCache refuses the directory \(directory.path): \(error); nothing will be cached. "
                + "Use a directory of this user's that no other user can write to."
            logger.warning("\(message)")
            storage = MemoryCacheStorage(maxBytes: 0)
            refusal = message
        }
        digester = FieldDigester(salt: storage.salt)
    }

    /// Removes every stored response.
    public func removeAll() {
        storage.removeAll()
    }

    /// Drives `plan` to its answer with a blocking network step (a background revalidation;
    /// a send's plan is carried out by `CacheStep`).
    private func run(_ plan: CacheExchangePlan, network: (RawRequest) -> RawResponse) -> RawResponse {
        var plan = plan
        // Ends after at most two network calls (see `CacheCompletion.finish`).
        while true {
            switch plan {
            case .answered(let response): return response
            case .network(let request, let completion): plan = completion.finish(network(request))
            }
        }
    }

    /// Everything the exchange of `request` does before the network: the cache's answer, or the
    /// request to send (the original or a conditional one) with what to do with its answer.
    func plan(_ request: RawRequest, for session: Session) -> CacheExchangePlan {
        if refusal != nil { return .network(request, CacheCompletion(cache: self, step: .disabled)) }
        let directives = CacheDirectives(request.headers, isRequest: true)
        if CachePolicy.bypasses(request) {
            if directives.onlyIfCached { return .answered(unsatisfiable(request)) }
            return .network(request, CacheCompletion(cache: self, step: .uncached(request)))
        }
        let started = ContinuousClock.now
        let key = CacheKey(request: request, credentialHeaders: session.configuration.credentialHeaders,
                           connection: session.cacheConnectionIdentity, digester: digester)
        let exchange = Exchange(request: request, key: key, directives: directives)
        let stored = storage.responses(for: key)
        let decision = CachePolicy.decide(request, directives: directives, stored: stored, digester: digester, now: clock())
        if CachePolicy.validatesItself(request) {
            return answer(exchange, decision, started: started)
        }
        switch decision {
        case .serve(let stored, let age):
            storage.recordUse(of: stored)
            return .answered(hit(stored, age: age, request: request, started: started))
        case .serveStale(let stored, let age, let conditional):
            storage.recordUse(of: stored)
            revalidateInBackground(stored, with: conditional, exchange, session: session)
            return .answered(hit(stored, age: age, request: request, started: started))
        case .unsatisfiable:
            return .answered(unsatisfiable(request))
        case .validate(let stored, let conditional):
            return revalidation(of: stored, with: conditional, exchange)
        case .network(let stored):
            return fetch(exchange, replacing: stored)
        }
    }

    /// A request with its own validators or range: answered from a response that may be served
    /// without validation when `CachedAnswer` can, else sent as it is (its answer not stored).
    private func answer(_ exchange: Exchange, _ decision: CachePolicy.Decision,
                        started: ContinuousClock.Instant) -> CacheExchangePlan {
        switch decision {
        case .serve(let stored, let age):
            let full = hit(stored, age: age, request: exchange.request, started: started)
            if let answer = CachedAnswer.answer(exchange.request, full: full, stored: stored) {
                storage.recordUse(of: stored)
                return .answered(answer)
            }
        case .unsatisfiable:
            return .answered(unsatisfiable(exchange.request))
        case .serveStale, .validate, .network:
            break
        }
        // A GET: its answer invalidates nothing.
        return .network(exchange.request, CacheCompletion(cache: self, step: .uncached(exchange.request)))
    }

    /// Sends the request; its answer is stored when it may be (`complete`).
    private func fetch(_ exchange: Exchange, replacing stored: StoredResponse?) -> CacheExchangePlan {
        let step = CacheCompletion.Step.store(exchange, replacing: stored, requestTime: clock())
        return .network(exchange.request, CacheCompletion(cache: self, step: step))
    }

    /// Sends `conditional` to revalidate `stored` (`complete`).
    private func revalidation(of stored: StoredResponse, with conditional: RawRequest,
                              _ exchange: Exchange) -> CacheExchangePlan {
        let step = CacheCompletion.Step.revalidation(stored, conditional: conditional, exchange, requestTime: clock())
        return .network(conditional, CacheCompletion(cache: self, step: step))
    }

    /// Revalidates `stored` on one of the session's transfer threads (RFC 5861
    /// `stale-while-revalidate`; without a validator, fetches it again), unless a revalidation of
    /// the same entry is running already; what comes back is kept as a foreground revalidation
    /// would keep it. It goes through the session's network step (host limits and circuit
    /// breaker apply), without the send's progress and cancellation: that send has been answered.
    private func revalidateInBackground(_ stored: StoredResponse, with conditional: RawRequest?, _ exchange: Exchange,
                                        session: Session) {
        let entry = stored.url + " " + stored.variantName
        guard backgroundRevalidations.begin(entry) else { return }
        session.runOnTransferThread(for: exchange.request.url.absoluteString) { [self] in
            defer { backgroundRevalidations.end(entry) }
            let telemetry = session.sendEvents()
            let plan = conditional.map { revalidation(of: stored, with: $0, exchange) } ?? fetch(exchange, replacing: stored)
            _ = run(plan) { session.network($0, control: TransferControl(), telemetry: telemetry) }
        }
    }

    /// Waits until no background revalidation runs (tests); `false` when `timeout` passed first.
    func waitForBackgroundRevalidations(timeout: TimeInterval) -> Bool {
        backgroundRevalidations.waitUntilIdle(timeout: timeout)
    }

    /// What one request brings to the steps below.
    struct Exchange: Sendable {
        let request: RawRequest
        let key: CacheKey
        let directives: CacheDirectives
    }

    private func hit(_ stored: StoredResponse, age: Double, request: RawRequest, started: ContinuousClock.Instant) -> RawResponse {
        var headers = stored.headers
        // RFC 9111 §4: a response served without validation carries its current age.
        headers["Age"] = String(Int(min(age.rounded(.down), Double(CacheDirectives.largestDelta))))
        var metrics = TransferMetrics()
        metrics.cacheStatus = .hit
        let elapsed = ContinuousClock.now - started
        metrics.total = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return RawResponse(request: request, statusCode: HTTPStatusCode(rawValue: stored.status), headers: headers,
                           data: stored.body, metrics: metrics)
    }

    private func unsatisfiable(_ request: RawRequest) -> RawResponse {
        var metrics = TransferMetrics()
        metrics.cacheStatus = .miss
        let error = HTTPTransportError(
            code: .other,
            message: "No usable stored response for \(request.method.rawValue) \(request.url.absoluteString), and the request's "
                + "Cache-Control says only-if-cached, so the network was not used (the cache answers 504 Gateway Timeout). "
                + "Send it without only-if-cached to fetch it.",
            url: request.url.absoluteString, httpStatusCode: .gatewayTimeout)
        return RawResponse(request: request, statusCode: .gatewayTimeout, error: error, metrics: metrics)
    }

    /// What the exchange does with the network's answer to the request `plan` sent (see
    /// `CacheCompletion.Step`): the final response, or the plain fetch a mismatched `304` asks for.
    func complete(_ step: CacheCompletion.Step, with response: RawResponse) -> CacheExchangePlan {
        var response = response
        switch step {
        case .disabled:
            response.metrics.cacheStatus = .disabled
        case .uncached(let request):
            response.metrics.cacheStatus = .miss
            for url in CachePolicy.invalidatedURLs(by: request, response: response) {
                storage.removeAll(url: url)
            }
        case .store(let exchange, let stored, let requestTime):
            // A complete, non-5xx answer that may not be stored removes the response it supersedes.
            response.metrics.cacheStatus = .miss
            keep(response, exchange, requestTime: requestTime, responseTime: clock(), replacing: stored)
        case .revalidation(let stored, let conditional, let exchange, let requestTime):
            return revalidated(stored, by: response, to: conditional, exchange, requestTime: requestTime)
        }
        return .answered(response)
    }

    private func revalidated(_ stored: StoredResponse, by response: RawResponse, to conditional: RawRequest,
                             _ exchange: Exchange, requestTime: Double) -> CacheExchangePlan {
        let responseTime = clock()
        guard response.error == nil, response.statusCode == .notModified else {
            // A full answer replaces the stored response (or removes it); a failure leaves it.
            var response = response
            response.metrics.cacheStatus = .miss
            keep(response, exchange, requestTime: requestTime, responseTime: responseTime, replacing: stored)
            return .answered(response)
        }
        guard CachePolicy.notModified(response.headers, refersTo: stored) else {
            // The 304 is about another representation: this one is outdated; ask again plainly.
            storage.remove(stored)
            return fetch(exchange, replacing: nil)
        }
        let updated = CachePolicy.freshened(stored, with: response.headers, requestTime: requestTime,
                                            responseTime: responseTime)
        if CachePolicy.isStorable(status: updated.status, headers: updated.headers, requestDirectives: exchange.directives) {
            storage.store(updated)
        } else {
            storage.remove(stored)
        }
        var metrics = response.metrics
        metrics.cacheStatus = .revalidated
        return .answered(RawResponse(request: conditional, statusCode: HTTPStatusCode(rawValue: updated.status),
                                     headers: updated.headers, data: updated.body, metrics: metrics))
    }

    /// Stores a network answer when the rules allow; a complete answer that may not be stored
    /// removes the stored response it supersedes, unless it is a server error.
    private func keep(_ response: RawResponse, _ exchange: Exchange, requestTime: Double, responseTime: Double,
                      replacing stored: StoredResponse?) {
        guard response.error == nil, response.fileURL == nil, let status = response.statusCode?.rawValue else { return }
        guard CachePolicy.isStorable(status: status, headers: response.headers, requestDirectives: exchange.directives),
              let vary = VaryRule(responseHeaders: response.headers)
        else {
            if let stored, status < 500 { storage.remove(stored) }
            return
        }
        let fresh = StoredResponse(
            url: exchange.key.url, credentialDigest: exchange.key.credentialDigest, vary: vary,
            varyDigest: vary.digest(of: exchange.request, using: digester), status: status,
            headers: HTTPHeaders(CachePolicy.storedHeaders(response.headers)), body: response.data ?? Data(),
            requestTime: requestTime, responseTime: responseTime)
        storage.store(fresh)
        if let stored, stored.variantName != fresh.variantName { storage.remove(stored) }
    }
}
