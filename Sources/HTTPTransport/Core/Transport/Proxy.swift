/// The proxy a session sends through, set as `Session.Configuration.proxy`.
///
/// `http://`, `https://` (TLS to the proxy, verified like servers are: against the session's
/// `Security(trustedRootCertificates:)` when given, else the system roots), `socks5://`
/// (names resolved here) and `socks5h://` (names resolved by the proxy) URLs are accepted. An
/// explicit proxy, like `.direct`, ignores every proxy variable of the environment, `no_proxy`
/// included: list the hosts to reach directly in `noProxy` (`"internal.example"` also covers its
/// subdomains; `"10.0.0.0/8"` covers addresses; `"*"` covers everything). `nil` (the default)
/// leaves the choice to the environment, as curl reads it.
///
/// ```swift
/// configuration.proxy = Proxy("http://proxy.internal:3128", username: "worker", password: secret,
///                             noProxy: ["internal.example"])
/// configuration.proxy = .direct   // never a proxy, whatever the environment says
/// ```
///
/// Only these credentials authenticate to a proxy: a `Proxy-Authorization` header set on a
/// request is removed and sent nowhere. Credentials written into the URL
/// (`http://user:pass@host:3128`) are taken out of it and used the same way. A URL that is not
/// one of the four kinds fails every send with `.invalidURL`, saying what is wrong.
public struct Proxy: Sendable, Hashable, CustomStringConvertible {
    /// The proxy's URL, as given (empty for `.direct`).
    public let url: String
    /// The user name sent to the proxy, if any.
    public let username: String?
    /// The password sent to the proxy, if any.
    public let password: String?
    /// Hosts (names, domains, addresses or CIDR ranges) reached without the proxy.
    public let noProxy: [String]
    /// `true` for `.direct`.
    let isDirect: Bool

    /// A proxy at `url` (`http://host:port`, `https://…`, `socks5://…`, `socks5h://…`).
    public init(_ url: String, username: String? = nil, password: String? = nil, noProxy: [String] = []) {
        self.url = url
        self.username = username
        self.password = password
        self.noProxy = noProxy
        isDirect = false
    }

    private init(direct: Void) {
        url = ""
        username = nil
        password = nil
        noProxy = []
        isDirect = true
    }

    /// No proxy: every request connects directly, whatever the environment's proxy variables say.
    public static let direct = Proxy(direct: ())

    /// The proxy's URL without credentials, and whether a password is set (never the password).
    public var description: String {
        if isDirect { return "Proxy.direct" }
        guard let parsed = try? ProxyURL(self) else { return "Proxy((invalid) \(ProxyURL.redacted(url)))" }
        return "Proxy(\(parsed.url)\(parsed.username.map { ", username: \($0)" } ?? "")"
            + "\(parsed.password == nil ? "" : ", password: ***"))"
    }
}
