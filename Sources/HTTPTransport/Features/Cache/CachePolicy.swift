import Foundation

/// The rules of an RFC 9111 *private* cache, as decisions on values (no storage, no clock of its
/// own), so every rule can be tested with any time.
enum CachePolicy {
    /// What the cache does with a request it may answer.
    enum Decision: Sendable {
        /// Serve this stored response as it is; its current age in seconds.
        case serve(StoredResponse, age: Double)
        /// Serve this stale response as it is, and revalidate it in the background (with this
        /// conditional request, or a plain one when it has no validator): `stale-while-revalidate`.
        case serveStale(StoredResponse, age: Double, conditional: RawRequest?)
        /// Ask the server whether this stored response is still good, with this conditional request.
        case validate(StoredResponse, conditional: RawRequest)
        /// Go to the network; the stored response that matched, if any, is superseded by the answer.
        case network(replacing: StoredResponse?)
        /// `only-if-cached` and nothing usable is stored: answer without the network (RFC 9111 §5.2.1.7).
        case unsatisfiable
    }

    /// Request preconditions only the origin server can evaluate (RFC 9111 §4.3.2; `If-Range` as
    /// this cache does not evaluate it): the cache passes such a request through untouched.
    static let originPreconditionFields = ["If-Match", "If-Unmodified-Since", "If-Range"]

    /// Request fields of the user's own conditional or range request: the cache answers it from a
    /// response it may serve without validation (`CachedAnswer`), else sends it as it is, and
    /// never stores what comes back.
    static let ownValidationFields = ["If-None-Match", "If-Modified-Since", "Range"]

    /// Fields a cache does not store (RFC 9111 §3.1: hop-by-hop fields), plus `Set-Cookie`:
    /// a hit replaying an old cookie would overwrite newer ones, and cookies are credentials
    /// that must not reach a cache directory.
    static let unstoredFields: Set<String> = ["connection", "keep-alive", "proxy-connection", "te", "trailer",
                                              "transfer-encoding", "upgrade", "set-cookie", "set-cookie2"]

    /// Fields a `304` does not update (RFC 9111 §3.2): the stored body's framing and coding.
    static let framingFields: Set<String> = ["content-length", "content-encoding", "content-range", "transfer-encoding"]

    /// Whether the cache stays out of `request` entirely: anything but a GET (other methods, a
    /// body, a download to a file), preconditions for the origin, and a `Range` other than one
    /// byte range.
    static func bypasses(_ request: RawRequest) -> Bool {
        request.method != .get || request.body != nil || request.download != nil
            || originPreconditionFields.contains { request.headers.contains($0) }
            || request.headers.first("Range").map { ByteRange($0) == nil } == true
    }

    /// Whether `request` carries its own validators or range (`ownValidationFields`).
    static func validatesItself(_ request: RawRequest) -> Bool {
        ownValidationFields.contains { request.headers.contains($0) }
    }

    /// Methods that change the resource: anything but GET, HEAD, OPTIONS and TRACE (RFC 9110 §9.2.1).
    static func isUnsafe(_ method: HTTPRequest.HTTPMethod) -> Bool {
        ![.get, .head, .options, .trace].contains(method)
    }

    /// Whether a response to a GET may be stored (RFC 9111 §3): a complete final response
    /// without `no-store` (in it or in the request) or `Vary: *`, that is explicitly cacheable
    /// (`max-age`, `Expires`, `public`, `private`) or has a status cacheable by default.
    /// Partial content (206) is never stored: this cache does not combine ranges.
    static func isStorable(status: Int, headers: HTTPHeaders, requestDirectives: CacheDirectives) -> Bool {
        guard status >= 200, status != 206, status != 304, !requestDirectives.noStore,
              VaryRule(responseHeaders: headers) != nil
        else { return false }
        let directives = CacheDirectives(headers)
        guard !directives.noStore else { return false }
        return directives.maxAge != nil || headers.contains("Expires") || directives.isPublic || directives.isPrivate
            || CacheFreshness.heuristicallyCacheable.contains(status)
    }

    /// What to do with `request` given the responses stored for its key (RFC 9111 §4).
    static func decide(_ request: RawRequest, directives: CacheDirectives, stored candidates: [StoredResponse],
                       digester: FieldDigester, now: Double) -> Decision {
        // §4.1: the most recent stored response whose Vary selection matches.
        let stored = candidates
            .filter { $0.varyDigest == $0.vary.digest(of: request, using: digester) }
            .max { $0.responseTime < $1.responseTime }
        guard let stored else { return directives.onlyIfCached ? .unsatisfiable : .network(replacing: nil) }
        let freshness = stored.freshness(now: now)
        if isUsableWithoutValidation(freshness, request: directives, response: stored.directives) {
            return .serve(stored, age: freshness.currentAge)
        }
        if mayServeWhileRevalidating(freshness, request: directives, response: stored.directives) {
            return .serveStale(stored, age: freshness.currentAge, conditional: conditionalRequest(for: request, stored: stored))
        }
        if directives.onlyIfCached { return .unsatisfiable }
        if let conditional = conditionalRequest(for: request, stored: stored) {
            return .validate(stored, conditional: conditional)
        }
        return .network(replacing: stored)
    }

    /// §4.2 and §5.2: fresh enough for the request, or stale within the request's `max-stale`
    /// when the response allows serving it stale (no `must-revalidate`); never with `no-cache`
    /// on either side.
    static func isUsableWithoutValidation(_ freshness: CacheFreshness, request: CacheDirectives,
                                          response: CacheDirectives) -> Bool {
        guard meetsRequestLimits(freshness, request: request, response: response) else { return false }
        if freshness.isFresh { return true }
        guard !response.mustRevalidate, let maxStale = request.maxStale else { return false }
        return maxStale == Int.max || freshness.staleness <= Double(maxStale)
    }

    /// RFC 5861: a stale response within its `stale-while-revalidate` window may be served while
    /// it is revalidated, unless `must-revalidate`, `no-cache` or the request's limits forbid it.
    static func mayServeWhileRevalidating(_ freshness: CacheFreshness, request: CacheDirectives,
                                          response: CacheDirectives) -> Bool {
        guard let window = response.staleWhileRevalidate, !freshness.isFresh, !response.mustRevalidate,
              meetsRequestLimits(freshness, request: request, response: response)
        else { return false }
        return freshness.staleness <= Double(window)
    }

    /// No `no-cache` on either side, and within the request's `max-age` and `min-fresh`.
    private static func meetsRequestLimits(_ freshness: CacheFreshness, request: CacheDirectives,
                                           response: CacheDirectives) -> Bool {
        if request.noCache || response.noCache { return false }
        if let maxAge = request.maxAge, freshness.currentAge > Double(maxAge) { return false }
        if let minFresh = request.minFresh, freshness.lifetime - freshness.currentAge < Double(minFresh) { return false }
        return true
    }

    /// `request` with `If-None-Match` (the stored `ETag`) and `If-Modified-Since` (the stored
    /// `Last-Modified`, as RFC 9110 §13.1.3 advises), or nil when the stored response has no validator.
    static func conditionalRequest(for request: RawRequest, stored: StoredResponse) -> RawRequest? {
        let entityTag = stored.headers.first("ETag")
        let lastModified = stored.headers.first("Last-Modified")
        guard entityTag != nil || lastModified != nil else { return nil }
        var conditional = request
        if let entityTag { conditional.setValue(entityTag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified { conditional.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }
        return conditional
    }

    /// Whether a `304` is about `stored` (§4.3.4): when it names an entity tag, the stored
    /// response must carry the same one (weak comparison); without one, the single stored
    /// response validated is meant.
    static func notModified(_ headers: HTTPHeaders, refersTo stored: StoredResponse) -> Bool {
        guard let tag = headers.first("ETag") else { return true }
        guard let storedTag = stored.headers.first("ETag") else { return false }
        return opaqueTag(tag) == opaqueTag(storedTag)
    }

    /// An entity tag without its weakness mark, for the weak comparison (RFC 9110 §8.8.3.2).
    static func opaqueTag(_ tag: String) -> Substring {
        let trimmed = tag.trimmingHeaderWhitespace()
        return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed
    }

    /// `stored` freshened by a `304` (§4.3.4 and §3.2): the 304's fields replace the stored ones
    /// of the same name, except the body's framing; the times become the validation's. A stored
    /// `Age` goes unless the 304 has one: it described the old response, not this one.
    static func freshened(_ stored: StoredResponse, with notModified: HTTPHeaders, requestTime: Double,
                          responseTime: Double) -> StoredResponse {
        let incoming = storedHeaders(notModified).filter { !framingFields.contains($0.name.lowercased()) }
        var replaced = Set(incoming.map { $0.name.lowercased() })
        replaced.insert("age")
        var fields = stored.headers.filter { !replaced.contains($0.name.lowercased()) }
        fields.append(contentsOf: incoming)
        return stored.with(headers: HTTPHeaders(fields), requestTime: requestTime, responseTime: responseTime)
    }

    /// The fields of a response that a cache keeps (§3.1): without the hop-by-hop fields, those
    /// that `Connection` names, and `Set-Cookie`.
    static func storedHeaders(_ headers: HTTPHeaders) -> [HTTPHeaders.Field] {
        var dropped = unstoredFields
        for line in headers.values("Connection") {
            for name in line.split(separator: ",") {
                dropped.insert(name.trimmingHeaderWhitespace().lowercased())
            }
        }
        return headers.filter { !dropped.contains($0.name.lowercased()) }
    }

    /// The URLs an unsafe request's non-error response invalidates (§4.4): its own, and those of
    /// `Location` and `Content-Location` when they have the request's origin.
    static func invalidatedURLs(by request: RawRequest, response: RawResponse) -> [String] {
        guard isUnsafe(request.method), response.error == nil, let status = response.statusCode?.rawValue,
              (200..<400).contains(status)
        else { return [] }
        var urls = [CacheKey.url(request.url)]
        for name in ["Location", "Content-Location"] {
            guard let value = response.headers.first(name),
                  let target = URL(string: value, relativeTo: request.url)?.absoluteURL,
                  hasSameOrigin(target, request.url)
            else { continue }
            urls.append(CacheKey.url(target))
        }
        return urls
    }

    /// Same scheme, host and port (the default port of the scheme when none is written).
    static func hasSameOrigin(_ a: URL, _ b: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int)? {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            return (scheme, host, url.port ?? (scheme == "https" ? 443 : 80))
        }
        guard let left = origin(a), let right = origin(b) else { return false }
        return left == right
    }
}
