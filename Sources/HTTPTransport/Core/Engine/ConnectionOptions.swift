import CCurl
import Foundation

/// The libcurl options that come from the session's configuration, not from a request: proxy,
/// HTTP version, stall time-out, Unix socket, DNS overrides, IP version and the address check.
///
/// Checked once, when the session is made: a bad value (an unsupported proxy scheme, a malformed
/// DNS override…) fails every send with a message saying how to fix it, before anything is
/// sent. `apply(to:context:)` sets them once, on a new handle (the engine never resets a handle,
/// so they stay). The rest is per request and kept apart: `refusal(for:)` before a send,
/// `failure(…)` after a failed transfer. (A request's own `Proxy-Authorization` is dropped with
/// the wire header lines, see `WireHeaders`.)
struct ConnectionOptions: Sendable {
    enum ProxyChoice: Sendable, Equatable {
        /// `proxy == nil`: libcurl reads the environment.
        case environment
        case direct
        case explicit(ProxyURL, noProxy: String)
    }

    /// The checked values, as libcurl takes them.
    struct Settings: Sendable {
        var proxy = ProxyChoice.environment
        var httpVersion = Int(CURL_HTTP_VERSION_2TLS)
        var ipResolve = Int(CURL_IPRESOLVE_WHATEVER)
        /// Whole seconds (`CURLOPT_LOW_SPEED_TIME`), nil for no stall time-out.
        var lowSpeedTime: Int?
        var unixSocketPath: String?
        /// `host:port:address` entries for `CURLOPT_RESOLVE`.
        var resolveEntries: [String] = []
    }

    let addressPolicy: AddressPolicy
    let settings: Result<Settings, HTTPTransportError>
    /// The session's private roots (`Security.trustedRootCertificates`), which also verify an
    /// `https://` proxy.
    let trustedRoots: URL?
    /// Where the environment's proxy variables are read (the process's, or a test's).
    let environment: ProxyEnvironment
    /// An explicit proxy's `noProxy`, read once.
    private let explicitNoProxy: NoProxyList?

    init(_ configuration: Session.Configuration, trustedRoots: URL? = nil, environment: ProxyEnvironment = .process) {
        addressPolicy = configuration.addressPolicy
        self.trustedRoots = trustedRoots
        self.environment = environment
        settings = Result { () throws(HTTPTransportError) in try Self.check(configuration) }
        if case .success(let settings) = settings, case .explicit(_, let noProxy) = settings.proxy {
            explicitNoProxy = NoProxyList(noProxy)
        } else {
            explicitNoProxy = nil
        }
    }

    private static func check(_ configuration: Session.Configuration) throws(HTTPTransportError) -> Settings {
        var settings = Settings()
        switch configuration.proxy {
        case nil: settings.proxy = .environment
        case let proxy? where proxy.isDirect: settings.proxy = .direct
        case let proxy?:
            let url = try ProxyURL(proxy)
            for entry in proxy.noProxy where entry.contains(where: { $0 == "," || $0.isWhitespace }) || entry.isEmpty {
                throw HTTPTransportError(code: .invalidURL, message: "The proxy's noProxy entry '\(entry)' is empty or contains a comma or a space: give one host, domain or CIDR range per entry.")
            }
            settings.proxy = .explicit(url, noProxy: proxy.noProxy.joined(separator: ","))
        }
        switch configuration.httpVersion {
        case .automatic: settings.httpVersion = Int(CURL_HTTP_VERSION_2TLS)
        case .http1_1: settings.httpVersion = Int(CURL_HTTP_VERSION_1_1)
        case .http2PriorKnowledge: settings.httpVersion = Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        }
        switch configuration.ipVersion {
        case .any: settings.ipResolve = Int(CURL_IPRESOLVE_WHATEVER)
        case .v4: settings.ipResolve = Int(CURL_IPRESOLVE_V4)
        case .v6: settings.ipResolve = Int(CURL_IPRESOLVE_V6)
        }
        settings.lowSpeedTime = try configuration.stallTimeout.map(lowSpeedTime)
        if let path = configuration.unixSocketPath {
            // sockaddr_un holds 108 bytes, the terminating zero included.
            guard !path.isEmpty, path.utf8.count < 108, !path.utf8.contains(0) else {
                throw HTTPTransportError(code: .other, message: "The session's unixSocketPath must be a non-empty path shorter than 108 bytes; '\(path)' is not.")
            }
            settings.unixSocketPath = path
        }
        settings.resolveEntries = try resolveEntries(configuration.resolveOverrides)
        return settings
    }

    /// libcurl counts a stall in whole seconds: rounded up, at least 1.
    static func lowSpeedTime(_ seconds: TimeInterval) throws(HTTPTransportError) -> Int {
        guard !seconds.isNaN, seconds > 0 else {
            throw HTTPTransportError(code: .other, message: "The session's stallTimeout must be a positive number of seconds (or nil for none), not \(seconds).")
        }
        return max(1, Int(min(seconds.rounded(.up), 1_000_000_000)))
    }

    /// `["host:port": "address"]` as `CURLOPT_RESOLVE` entries, each part checked (libcurl
    /// itself skips a malformed entry silently, so the request would go to the real address).
    static func resolveEntries(_ overrides: [String: String]) throws(HTTPTransportError) -> [String] {
        var entries: [String] = []
        for (key, value) in overrides.sorted(by: { $0.key < $1.key }) {
            func invalid(_ reason: String) -> HTTPTransportError {
                HTTPTransportError(code: .invalidURL, message: "The DNS override \"\(key)\": \"\(value)\" \(reason). Write it as \"host:port\": \"address\", e.g. \"api.example.com:443\": \"10.0.0.7\".")
            }
            guard let colon = key.lastIndex(of: ":") else { throw invalid("has no port in its key") }
            let host = key[..<colon], port = key[key.index(after: colon)...]
            guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }),
                  host.first != "-", host.first != "." else {
                throw invalid("has an invalid host name (letters, digits, '-', '.' and '_' only; no IP address)")
            }
            guard let number = Int(port), (1...65535).contains(number), port.allSatisfy(\.isASCII) else {
                throw invalid("has an invalid port (1–65535)")
            }
            var addresses: [String] = []
            for text in value.split(separator: ",", omittingEmptySubsequences: false) {
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                guard let address = IPAddress(trimmed) else {
                    throw invalid("has '\(trimmed)', which is not an IPv4 (a.b.c.d) or IPv6 address")
                }
                addresses.append(address.family == .v6 ? "[\(address)]" : address.description)
            }
            entries.append("\(host.lowercased()):\(number):" + addresses.joined(separator: ","))
        }
        return entries
    }

    // MARK: Session-level: once per handle

    /// Sets the session's connection options on `handle`, keeping what libcurl must find again
    /// during transfers (the policy, the DNS override list) in `context`, which lives as long as
    /// the handle. Throws the configuration's problem, if it has one.
    func apply(to handle: EasyHandle, context: ConnectionContext) throws {
        let settings = try settings.get()
        try handle.set(CURLOPT_HTTP_VERSION, settings.httpVersion)
        if settings.ipResolve != Int(CURL_IPRESOLVE_WHATEVER) { try handle.set(CURLOPT_IPRESOLVE, settings.ipResolve) }
        if let seconds = settings.lowSpeedTime {
            try handle.set(CURLOPT_LOW_SPEED_LIMIT, 1)
            try handle.set(CURLOPT_LOW_SPEED_TIME, seconds)
        }
        if let path = settings.unixSocketPath { try handle.set(CURLOPT_UNIX_SOCKET_PATH, path) }
        if !settings.resolveEntries.isEmpty {
            try handle.check(ccurl_setopt_slist(handle.curl, CURLOPT_RESOLVE, context.resolveList(for: settings.resolveEntries)),
                             CURLOPT_RESOLVE)
        }
        // Whether a request goes through the proxy is decided per request by `route(for:)` and
        // set with the transfer's options; libcurl's own no_proxy and environment look-ups are
        // switched off, so they can never disagree with that decision.
        if decidesProxy { try handle.set(CURLOPT_NOPROXY, "") }
        if case .explicit(let proxy, _) = settings.proxy {
            if let username = proxy.username { try handle.set(CURLOPT_PROXYUSERNAME, username) }
            if let password = proxy.password { try handle.set(CURLOPT_PROXYPASSWORD, password) }
            if proxy.scheme == "https", let trustedRoots {
                // As for servers: the bundle replaces the system roots (and Debian's CA directory).
                try handle.set(CURLOPT_PROXY_CAINFO, trustedRoots.path)
                try handle.check(ccurl_setopt_string(handle.curl, CURLOPT_PROXY_CAPATH, nil), CURLOPT_PROXY_CAPATH)
            }
        }
        if addressPolicy.checksAddresses {
            context.policy = addressPolicy
            try handle.check(ccurl_set_opensocket_callback(handle.curl, curlOpenSocketCallback, context.opaque),
                             CURLOPT_OPENSOCKETFUNCTION)
        }
    }

    // MARK: Per request

    /// Whether a transfer to `url` must close its connection when done: libcurl 7.88.1 fails every
    /// reuse of an HTTP/2 prior-knowledge connection in clear text ("Error in the HTTP2 framing
    /// layer", curl issue #10634, fixed in 8.0.0), so h2c connections are used once. Over TLS,
    /// HTTP/2 is negotiated as usual and its connections are reused.
    func forbidsReuse(of url: URL) -> Bool {
        guard case .success(let settings) = settings,
              settings.httpVersion == Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE) else { return false }
        return url.scheme?.lowercased() == "http"
    }

    /// Where a request connects: directly, or through which proxy. The one rule for both the
    /// address policy and libcurl (`TransferOptions.proxy`).
    enum Route: Equatable {
        case direct
        /// `url` is what libcurl gets; `description` names it for messages (no password).
        case proxy(url: String, description: String)

        /// `CURLOPT_PROXY`: the proxy URL, or "" for a direct connection.
        var curlValue: String {
            if case .proxy(let url, _) = self { return url }
            return ""
        }
    }

    /// Whether this library decides proxy or direct for each request and tells libcurl: always,
    /// except with the environment's variables and no address policy, where nothing here
    /// depends on the answer and libcurl, reading the variables itself, is the one that decides.
    var decidesProxy: Bool {
        guard case .success(let settings) = settings, case .environment = settings.proxy else { return true }
        return addressPolicy.checksAddresses
    }

    /// The route of `request` under the session's proxy setting: an explicit proxy unless its
    /// `noProxy` covers the host; the environment's variables as libcurl reads them; `.direct`.
    func route(for request: RawRequest) -> Route {
        guard case .success(let settings) = settings else { return .direct }
        let host = request.url.host ?? ""
        switch settings.proxy {
        case .direct:
            return .direct
        case .explicit(let url, let noProxy):
            if (explicitNoProxy ?? NoProxyList(noProxy)).covers(host: host) { return .direct }
            return .proxy(url: url.url, description: "the session's proxy \(url.url)")
        case .environment:
            guard let found = environment.proxy(scheme: request.url.scheme ?? "", host: host) else { return .direct }
            return .proxy(url: found.url, description: "the proxy \(ProxyURL.redacted(found.url)) (from the environment variable \(found.variable))")
        }
    }

    /// Refuses a send that an address policy cannot check because it would go through a proxy
    /// (which resolves and connects to the target itself); `nil` when the send may go ahead.
    func refusal(for request: RawRequest, route: Route) -> HTTPTransportError? {
        guard addressPolicy.checksAddresses, case .success(let settings) = settings, settings.unixSocketPath == nil,
              case .proxy(_, let proxy) = route else {
            return nil
        }
        let host = request.url.host ?? ""
        return HTTPTransportError(
            code: .addressNotAllowed,
            message: "The session's addressPolicy (\(addressPolicy.name)) cannot check where this request connects: it would go through \(proxy), which resolves and connects to \(host) itself. Nothing was sent. Connect directly (Session.Configuration.proxy = .direct, or list the host in noProxy/no_proxy) or use addressPolicy .any.",
            url: request.url.absoluteString)
    }
}
