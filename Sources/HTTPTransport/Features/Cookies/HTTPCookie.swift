import Foundation

/// One HTTP cookie, as a server set it (`Set-Cookie`, RFC 6265) or as the caller builds it to
/// send by hand. A value type: the cookie store keeps its own copies, and changing one of these
/// changes nothing in a store until it is passed to `CookieStorage.setCookie(_:)`.
public struct HTTPCookie: Sendable, Hashable {
    /// The `SameSite` attribute (RFC 6265bis). Kept for inspection and callers that care; this
    /// client has no notion of a "site" and sends cookies regardless of it.
    public enum SameSite: String, Sendable {
        /// `SameSite=Strict`.
        case strict = "Strict"
        /// `SameSite=Lax`.
        case lax = "Lax"
        /// `SameSite=None`.
        case none = "None"
    }

    /// The cookie name (case-sensitive, may contain any octet but `;` and `=`).
    public var name: String
    /// The cookie value, exactly as received (surrounding quotes are part of it).
    public var value: String
    /// The canonical (lower-case) host name the cookie belongs to, without a leading dot: the
    /// request host for a host-only cookie, the `Domain` attribute otherwise.
    public var domain: String
    /// The path the request path must path-match (RFC 6265 §5.1.4) for the cookie to be sent.
    public var path: String
    /// When the cookie expires, or nil for a session cookie (kept in memory, never saved).
    public var expiresDate: Date?
    /// Whether the cookie is sent only over secure connections (`https`, `wss`, or loopback).
    public var isSecure: Bool
    /// The `HttpOnly` attribute. This client is an HTTP API, so such cookies are stored and sent.
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute, when the server gave a recognised one.
    public var sameSite: SameSite?
    /// True when the cookie goes only to exactly `domain` (no `Domain` attribute was given);
    /// false when it also goes to every subdomain of `domain`.
    public var isHostOnly: Bool

    /// A cookie to send by hand (e.g. with `HTTPRequestEnvelope.with(cookie:)`): no domain yet,
    /// path `/`, a session cookie with no other attributes.
    public init(name: String, value: String) {
        self.init(name: name, value: value, domain: "")
    }

    /// A cookie with every field given; the defaults describe a host-only session cookie for
    /// path `/` with no other attributes (and no domain yet, as `init(name:value:)`).
    public init(
        name: String,
        value: String,
        domain: String = "",
        path: String = "/",
        expiresDate: Date? = nil,
        isSecure: Bool = false,
        isHTTPOnly: Bool = false,
        sameSite: SameSite? = nil,
        isHostOnly: Bool = true
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.expiresDate = expiresDate
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.isHostOnly = isHostOnly
    }

    /// Whether the cookie lives only as long as the session (it has no expiry date).
    public var isSessionCookie: Bool { expiresDate == nil }

    /// Parses one `Set-Cookie` header value received from `url` (RFC 6265 §5.2) and applies the
    /// per-cookie rules of the storage model (§5.3): default domain and path from `url`, the
    /// `Domain` attribute must domain-match the request host, `Max-Age` wins over `Expires`
    /// (computed from `now`). As RFC 6265bis, also refuses a `Secure` cookie from a non-secure
    /// URL (not `https`/`wss`/loopback), a header holding control characters (other than
    /// HTAB), and a cookie breaking its name's prefix rule (matched case-insensitively):
    /// `__Secure-` needs `Secure`; `__Host-` needs `Secure`, no `Domain` and `Path=/`.
    /// Returns nil when the header must be ignored (e.g. no `=` in its name-value pair, or an empty name). Does not
    /// check the public suffix list; `CookieStorage` does that when it stores the cookie.
    public static func parse(setCookieHeader: String, for url: URL, now: Date = Date()) -> HTTPCookie? {
        CookieParser.cookie(from: setCookieHeader, for: url, now: now)
    }
}
