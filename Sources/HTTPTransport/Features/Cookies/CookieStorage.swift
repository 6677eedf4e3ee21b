import Foundation

/// Something that keeps the cookies of responses: given every `Set-Cookie` header value of one
/// response and the URL it came from, it stores (or removes) the cookies they describe.
public protocol CookieStoring: Sendable {
    /// Stores the cookies of one response's `Set-Cookie` header values, received from `url`.
    func store(setCookieHeaders: [String], for url: URL)
}

/// Something that supplies the cookies a request sends: the ones for a URL, in the order the
/// `Cookie` header lists them.
public protocol CookieProviding: Sendable {
    /// The cookies to send to `url`, in `Cookie` header order.
    func cookies(for url: URL) -> [HTTPCookie]
}

/// A thread-safe cookie jar following RFC 6265 §5.3 (storage) and §5.4 (retrieval), optionally
/// backed by a Netscape cookie file (the one curl reads with `-b` and writes with `-c`).
/// Cookies whose `Domain` is a public suffix are refused (libpsl's list, as libcurl uses it); a
/// host written with a trailing dot (`example.com.`) is the same host as without; a `Secure`
/// cookie is accepted only from, and sent only to, `https`/`wss` or a loopback host (as curl
/// and browsers treat `localhost`, `127.0.0.0/8` and `::1` as secure), and is left alone by
/// responses from other origins (RFC 6265bis); the `__Secure-` and `__Host-` name prefixes
/// are enforced; `HttpOnly` cookies are kept and sent (this is an HTTP client, not a script
/// API). The store is bounded: expired cookies
/// go first, then the least recently used of a domain over `maxCookiesPerDomain`, then the
/// least recently used overall over `maxCookies`. The clock is injectable for tests.
public final class CookieStorage: CookieStoring, CookieProviding, Sendable {
    /// A cookie with what the store tracks about it besides its attributes.
    private struct Entry: Sendable {
        var cookie: HTTPCookie
        var creationTime: Date
        var creationSequence: UInt64
        var lastAccess: Date
        var accessSequence: UInt64

        func isExpired(at now: Date) -> Bool {
            cookie.expiresDate.map { $0 <= now } ?? false
        }

        /// Whether `self` was used less recently than `other` (the eviction order).
        func accessedBefore(_ other: Entry) -> Bool {
            (lastAccess, accessSequence) < (other.lastAccess, other.accessSequence)
        }
    }

    /// Identifies a cookie within its domain's bucket (RFC 6265: name, domain and path).
    private struct Key: Hashable, Sendable {
        var name: String
        var path: String
    }

    private struct State: Sendable {
        /// Cookies by their `domain`, then by name and path.
        var buckets: [String: [Key: Entry]] = [:]
        var sequence: UInt64 = 0
        var maxCookiesPerDomain = 50
        var maxCookies = 3000

        var count: Int { buckets.values.reduce(0) { $0 + $1.count } }

        mutating func nextSequence() -> UInt64 {
            sequence += 1
            return sequence
        }

        /// §5.3 steps 11-12: replaces a cookie of the same name, domain and path (keeping its
        /// creation time), or removes it when `cookie` has already expired.
        mutating func insert(_ cookie: HTTPCookie, now: Date) {
            let key = Key(name: cookie.name, path: cookie.path)
            let existing = buckets[cookie.domain]?[key]
            if let expiry = cookie.expiresDate, expiry <= now {
                if existing != nil { remove(domain: cookie.domain, key: key) }
                return
            }
            let accessSequence = nextSequence()
            buckets[cookie.domain, default: [:]][key] = Entry(
                cookie: cookie,
                creationTime: existing?.creationTime ?? now,
                creationSequence: existing?.creationSequence ?? accessSequence,
                lastAccess: now,
                accessSequence: accessSequence
            )
        }

        /// RFC 6265bis §5.7 ("leave secure cookies alone"): whether a live `Secure` cookie has
        /// `cookie`'s name, a domain that domain-matches `cookie`'s or is matched by it, and a
        /// path that `cookie`'s path path-matches. A non-secure origin may not set (nor delete)
        /// such a cookie, so it can neither overwrite a secure cookie nor shadow it with one
        /// sent first.
        func wouldShadowSecureCookie(_ cookie: HTTPCookie, now: Date) -> Bool {
            buckets.contains { domain, bucket in
                (CookieParser.domainMatches(host: domain, domain: cookie.domain)
                    || CookieParser.domainMatches(host: cookie.domain, domain: domain))
                    && bucket.values.contains { entry in
                        entry.cookie.isSecure && entry.cookie.name == cookie.name && !entry.isExpired(at: now)
                            && CookieParser.pathMatches(requestPath: cookie.path, cookiePath: entry.cookie.path)
                    }
            }
        }

        mutating func remove(domain: String, key: Key) {
            buckets[domain]?[key] = nil
            if buckets[domain]?.isEmpty == true { buckets[domain] = nil }
        }

        /// Drops expired cookies, then enforces the per-domain limit (on `domains`, or on every
        /// domain when nil), then the total limit; the least recently used go first.
        mutating func evict(now: Date, domains: Set<String>? = nil) {
            for (domain, bucket) in buckets where bucket.values.contains(where: { $0.isExpired(at: now) }) {
                let kept = bucket.filter { !$0.value.isExpired(at: now) }
                buckets[domain] = kept.isEmpty ? nil : kept
            }
            let perDomain = max(0, maxCookiesPerDomain)
            for domain in domains ?? Set(buckets.keys) {
                guard let bucket = buckets[domain], bucket.count > perDomain else { continue }
                let oldest = bucket.sorted { $0.value.accessedBefore($1.value) }.prefix(bucket.count - perDomain)
                for (key, _) in oldest { remove(domain: domain, key: key) }
            }
            let total = count, limit = max(0, maxCookies)
            guard total > limit else { return }
            let all = buckets.flatMap { domain, bucket in bucket.map { (domain, $0.key, $0.value) } }
            for (domain, key, _) in all.sorted(by: { $0.2.accessedBefore($1.2) }).prefix(total - limit) {
                remove(domain: domain, key: key)
            }
        }

        /// Every live cookie in creation order.
        func liveEntries(now: Date) -> [Entry] {
            buckets.values.flatMap(\.values)
                .filter { !$0.isExpired(at: now) }
                .sorted { $0.creationSequence < $1.creationSequence }
        }
    }

    private let state = Locked(State())
    private let file: URL?
    private let now: @Sendable () -> Date
    private let publicSuffixes: @Sendable () -> PublicSuffixList

    /// A store, empty or filled from `file` when that file exists (a Netscape cookie file; lines
    /// that are not well-formed cookies are skipped, expired cookies dropped). `save()` writes
    /// back to `file`. `now` is the clock for expiry and access times.
    public convenience init(file: URL? = nil, now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(file: file, now: now, publicSuffixes: { PublicSuffixList.shared })
    }

    /// As the public initialiser, with the public suffix list to use (for tests).
    init(file: URL?, now: @escaping @Sendable () -> Date, publicSuffixes: @escaping @Sendable () -> PublicSuffixList) {
        self.file = file
        self.now = now
        self.publicSuffixes = publicSuffixes
        guard let file, let data = FileManager.default.contents(atPath: file.path) else { return }
        let loaded = CookieFile.cookies(in: String(decoding: data, as: UTF8.self))
        let time = now()
        withState { state in
            for cookie in loaded { state.insert(cookie, now: time) }
            state.evict(now: time)
        }
    }

    /// How many cookies one domain may hold (default 50); over it, its least recently used
    /// cookies are evicted.
    public var maxCookiesPerDomain: Int {
        get { withState { $0.maxCookiesPerDomain } }
        set {
            let time = now()
            withState { $0.maxCookiesPerDomain = newValue; $0.evict(now: time) }
        }
    }

    /// How many cookies the store may hold in all (default 3000); over it, the least recently
    /// used cookies are evicted.
    public var maxCookies: Int {
        get { withState { $0.maxCookies } }
        set {
            let time = now()
            withState { $0.maxCookies = newValue; $0.evict(now: time) }
        }
    }

    /// Stores the cookies of one response received from `url`, in header order (RFC 6265
    /// §5.3): ignored headers are skipped, an expired cookie removes its stored namesake. As
    /// RFC 6265bis, a non-secure `url` cannot replace, remove or shadow a stored `Secure`
    /// cookie of the same name (overlapping domain, a path within the secure cookie's).
    public func store(setCookieHeaders: [String], for url: URL) {
        guard !setCookieHeaders.isEmpty, let host = CookieParser.canonicalHost(of: url.absoluteURL) else { return }
        let time = now()
        let cookies = setCookieHeaders.compactMap { header -> HTTPCookie? in
            guard var cookie = HTTPCookie.parse(setCookieHeader: header, for: url, now: time) else { return nil }
            // §5.3 step 5: a public-suffix Domain is refused, unless it is the host itself.
            if !cookie.isHostOnly, publicSuffixes().isPublicSuffix(cookie.domain) {
                guard cookie.domain == host else { return nil }
                cookie.isHostOnly = true
            }
            return cookie
        }
        guard !cookies.isEmpty else { return }
        let fromSecureOrigin = CookieParser.isSecureOrigin(url.absoluteURL)
        withState { state in
            for cookie in cookies where fromSecureOrigin || !state.wouldShadowSecureCookie(cookie, now: time) {
                state.insert(cookie, now: time)
            }
            state.evict(now: time, domains: Set(cookies.map(\.domain)))
        }
    }

    /// The cookies to send to `url` (RFC 6265 §5.4): matching host (exactly for host-only
    /// cookies) and path, `Secure` ones only for secure origins, none expired; longer paths
    /// first, then older cookies first. Marks them as just used.
    public func cookies(for url: URL) -> [HTTPCookie] {
        let url = url.absoluteURL
        guard let host = CookieParser.canonicalHost(of: url) else { return [] }
        let path = CookieParser.requestPath(of: url)
        let isSecure = CookieParser.isSecureOrigin(url)
        let time = now()
        return withState { state in
            var matches: [(domain: String, key: Key, entry: Entry)] = []
            for domain in Self.candidateDomains(for: host) {
                for (key, entry) in state.buckets[domain] ?? [:] {
                    let cookie = entry.cookie
                    guard !(cookie.isHostOnly && domain != host), !entry.isExpired(at: time),
                          !cookie.isSecure || isSecure,
                          CookieParser.pathMatches(requestPath: path, cookiePath: cookie.path)
                    else { continue }
                    matches.append((domain, key, entry))
                }
            }
            matches.sort { lhs, rhs in
                let lhsLength = lhs.entry.cookie.path.utf8.count, rhsLength = rhs.entry.cookie.path.utf8.count
                if lhsLength != rhsLength { return lhsLength > rhsLength }
                return (lhs.entry.creationTime, lhs.entry.creationSequence)
                    < (rhs.entry.creationTime, rhs.entry.creationSequence)
            }
            for match in matches {
                let sequence = state.nextSequence()
                state.buckets[match.domain]?[match.key]?.lastAccess = time
                state.buckets[match.domain]?[match.key]?.accessSequence = sequence
            }
            return matches.map(\.entry.cookie)
        }
    }

    /// The `Cookie` header value for `url` (`a=1; b=2`), or nil when no cookie applies.
    public func cookieHeader(for url: URL) -> String? {
        CookieHeader.appending(cookies(for: url), to: nil)
    }

    /// Writes the persistent (non-session, unexpired) cookies to the store's file in the
    /// Netscape format, atomically (a temporary file in the same directory renamed over it).
    /// Does nothing when the store has no file.
    public func save() throws {
        guard let file else { return }
        let time = now()
        let cookies = withState { $0.liveEntries(now: time).map(\.cookie) }.filter { !$0.isSessionCookie }
        try AtomicFile.write(Data(CookieFile.text(for: cookies).utf8), to: file)
    }

    /// Forgets every cookie (the file changes only on the next `save()`).
    public func removeAll() {
        withState { $0.buckets.removeAll() }
    }

    /// Every cookie stored and not expired, oldest first.
    public var allCookies: [HTTPCookie] {
        let time = now()
        return withState { $0.liveEntries(now: time).map(\.cookie) }
    }

    /// Inserts `cookie` as is (no public-suffix or origin checks), replacing a stored cookie of
    /// the same name, domain and path; an already-expired cookie just removes that one. The
    /// domain is lower-cased and loses a leading and a trailing `.`; a path not starting with
    /// `/` becomes `/`; an expiry after 9999-12-31 becomes that day (as for parsed cookies).
    /// A cookie with an empty domain or name, or one whose name or value could not be sent in
    /// a `Cookie` header (a control character, `;`, or `=` in the name), is ignored, as is one
    /// whose domain is no host name (white space or a control character in it, an empty label
    /// at either end, a leading `#`) or whose path holds a control character other than HTAB.
    public func setCookie(_ cookie: HTTPCookie) {
        var cookie = cookie
        guard let domain = CookieParser.canonicalDomain(cookie.domain),
              CookieParser.isSendable(name: cookie.name, value: cookie.value),
              !CookieParser.containsControlCharacter(cookie.path.utf8) else { return }
        cookie.domain = domain
        if !cookie.path.hasPrefix("/") { cookie.path = "/" }
        cookie.expiresDate = cookie.expiresDate.map { min($0, CookieParser.latestExpiry) }
        let time = now()
        withState { state in
            state.insert(cookie, now: time)
            state.evict(now: time, domains: [cookie.domain])
        }
    }

    private func withState<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
        state.withLock(body)
    }

    /// The domains whose cookies may go to `host`: itself and, for a host name, each parent
    /// (`a.b.example.org`, `b.example.org`, `example.org`, `org`), as domain-match allows.
    private static func candidateDomains(for host: String) -> [String] {
        var domains = [host]
        guard !IPAddress.isAddress(host: host) else { return domains }
        var rest = Substring(host)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if !rest.isEmpty { domains.append(String(rest)) }
        }
        return domains
    }
}
