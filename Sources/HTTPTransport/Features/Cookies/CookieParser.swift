import Foundation

/// The `Set-Cookie` parser (RFC 6265 §5.2) and the URL-related algorithms of §5.1: canonical
/// host, domain-match, default-path and path-match. Works on UTF-8 bytes, so any header text
/// (including non-ASCII and control characters) is handled without crashing.
enum CookieParser {
    /// The latest expiry date stored (9999-12-31T23:59:59Z); later ones are clamped to it, so
    /// every expiry fits the Netscape file's integer seconds.
    static let latestExpiry = Date(timeIntervalSince1970: 253_402_300_799)
    /// The expiry given to a cookie with `Max-Age` zero or negative: already in the past.
    static let earliestExpiry = Date(timeIntervalSince1970: 0)

    /// §5.2 then the per-cookie steps of §5.3 (see `HTTPCookie.parse(setCookieHeader:for:now:)`).
    static func cookie(from header: String, for url: URL, now: Date) -> HTTPCookie? {
        let url = url.absoluteURL
        guard let host = canonicalHost(of: url) else { return nil }
        let bytes = Array(header.utf8)
        // RFC 6265bis §5.7 step 1: control characters (but HTAB) void the whole header, so no
        // CR, LF or NUL can ever reach a Cookie header.
        guard !containsControlCharacter(bytes) else { return nil }

        // §5.2 steps 1-5: the name-value pair is everything before the first ';'.
        let firstSemicolon = bytes.firstIndex(of: semicolon) ?? bytes.endIndex
        let pair = bytes[..<firstSemicolon]
        guard let equals = pair.firstIndex(of: equalsSign) else { return nil }
        let name = trimmed(pair[..<equals])
        let value = trimmed(pair[(equals + 1)...])
        guard !name.isEmpty else { return nil }
        let attributes = Attributes(bytes[firstSemicolon...], now: now)

        // §5.3 steps 6-8 (the public-suffix step 5 is the store's).
        guard let (domain, isHostOnly) = cookieDomain(attributes.domain, host: host,
                                                    hostIsFullyQualified: url.host?.hasSuffix(".") == true)
        else { return nil }
        // RFC 6265bis: only a secure origin may set a Secure cookie.
        if attributes.isSecure && !isSecureOrigin(url) { return nil }
        let path = attributes.path ?? defaultPath(of: url)
        guard prefixRulesAllow(name: name, attributes: attributes, isHostOnly: isHostOnly, path: path) else {
            return nil
        }

        return HTTPCookie(
            name: name, value: value, domain: domain, path: path,
            expiresDate: attributes.maxAge ?? attributes.expires, isSecure: attributes.isSecure,
            isHTTPOnly: attributes.isHTTPOnly, sameSite: attributes.sameSite, isHostOnly: isHostOnly)
    }

    /// RFC 6265bis §4.1.3 and §5.7 (steps 19-20 of draft 19): a `__Secure-` cookie must be
    /// `Secure`; a `__Host-` cookie must be `Secure`, host-only (no `Domain`) and carry
    /// `Path=/`. The prefixes are matched case-insensitively, as the draft has required since
    /// httpwg/http-extensions#2236 (older drafts and RFC 6265 era user agents matched them
    /// case-sensitively): a server that compares cookie names case-insensitively must not be
    /// fooled by `__SECURE-`. Only a secure origin can meet these rules, as only it may set
    /// `Secure`.
    private static func prefixRulesAllow(name: String, attributes: Attributes, isHostOnly: Bool, path: String) -> Bool {
        if hasPrefix(name, caseInsensitive: "__Secure-") { return attributes.isSecure }
        if hasPrefix(name, caseInsensitive: "__Host-") {
            return attributes.isSecure && isHostOnly && attributes.hasPathAttribute && path == "/"
        }
        return true
    }

    private static func hasPrefix(_ name: String, caseInsensitive prefix: String) -> Bool {
        let bytes = name.utf8, prefixBytes = prefix.utf8
        return bytes.count >= prefixBytes.count
            && zip(bytes, prefixBytes).allSatisfy { asciiLowercased($0) == asciiLowercased($1) }
    }

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }

    /// The attributes after the name-value pair (§5.2 steps 6-8): a later one of a kind
    /// replaces an earlier one; unknown ones are ignored.
    struct Attributes {
        var expires: Date?
        var maxAge: Date?
        var domain: String?
        var path: String?
        /// Whether any `Path` attribute was given, valid or not (`__Host-` needs one).
        var hasPathAttribute = false
        var isSecure = false
        var isHTTPOnly = false
        var sameSite: HTTPCookie.SameSite?

        init(_ bytes: ArraySlice<UInt8>, now: Date) {
            for attribute in bytes.split(separator: semicolon, omittingEmptySubsequences: true) {
                let equals = attribute.firstIndex(of: equalsSign)
                let name = trimmed(attribute[..<(equals ?? attribute.endIndex)]).lowercased()
                read(name, value: equals.map { trimmed(attribute[($0 + 1)...]) } ?? "", now: now)
            }
        }

        private mutating func read(_ name: String, value: String, now: Date) {
            switch name {
            case "expires":
                if let date = CookieDateParser.parse(value) { expires = min(date, latestExpiry) }
            case "max-age":
                if let seconds = maxAgeSeconds(value) {
                    maxAge = seconds <= 0 ? earliestExpiry : min(now.addingTimeInterval(TimeInterval(seconds)), latestExpiry)
                }
            case "domain":
                // An empty value is ignored entirely (§5.2.3), so an earlier Domain stays.
                guard !value.isEmpty else { return }
                domain = (value.hasPrefix(".") ? String(value.dropFirst()) : value).lowercased()
            case "path":
                hasPathAttribute = true
                path = value.hasPrefix("/") ? value : nil
            case "secure":
                isSecure = true
            case "httponly":
                isHTTPOnly = true
            case "samesite":
                switch value.lowercased() {
                case "strict": sameSite = HTTPCookie.SameSite.strict
                case "lax": sameSite = HTTPCookie.SameSite.lax
                case "none": sameSite = HTTPCookie.SameSite.none  // not `.none`, which would be nil
                default: break
                }
            default:
                break
            }
        }
    }

    /// §5.3 steps 6-7: the cookie's domain and whether it is host-only; `nil` when the `Domain`
    /// attribute does not domain-match the host.
    private static func cookieDomain(_ attribute: String?, host: String,
                                     hostIsFullyQualified: Bool) -> (domain: String, isHostOnly: Bool)? {
        guard var attribute else { return (host, true) }
        // A fully qualified Domain (`example.com.`) names the host's domain only when the host is
        // written fully qualified too; otherwise it matches nothing (§5.1.3), so `Domain=com.`
        // can never reach the public-suffix check as something else.
        if hostIsFullyQualified, attribute.hasSuffix(".") { attribute.removeLast() }
        guard domainMatches(host: host, domain: attribute) else { return nil }
        return (attribute, false)
    }

    // MARK: - §5.1 algorithms

    /// §5.1.2: the URL's host, lower-cased and without the trailing dot of a fully qualified
    /// name (`example.com.` is the host `example.com`, as curl and browsers match it); nil when
    /// it has none, or an empty label at its end.
    static func canonicalHost(of url: URL) -> String? {
        guard let host = url.host else { return nil }
        var canonical = host.lowercased()
        if canonical.hasSuffix(".") { canonical.removeLast() }
        return canonical.isEmpty || canonical.hasSuffix(".") ? nil : canonical
    }

    /// A stored cookie's domain as matching expects it: lower-cased, without a leading `.`
    /// (the old domain-cookie marker) or a trailing one; nil when nothing is left, or when what
    /// is left could not be a host's domain and come back unchanged from the cookie file: a
    /// further dot at either end (an empty label), white space or a control character, or a
    /// leading `#` (which starts a comment line there).
    /// Dots and `#` are tested as scalars: a combining mark after one makes a Character that
    /// equals neither, while the file (and curl) sees the byte.
    static func canonicalDomain(_ domain: String) -> String? {
        var canonical = Substring(domain.lowercased()).unicodeScalars
        if canonical.first == "." { canonical.removeFirst() }
        if canonical.last == "." { canonical.removeLast() }
        guard let first = canonical.first, let last = canonical.last, first != ".", first != "#", last != ".",
              !canonical.contains(where: { $0.value <= 0x20 || $0.value == 0x7F })
        else { return nil }
        return String(canonical)
    }

    /// The URL's path as sent on the wire (still percent-encoded), `/` when empty.
    static func requestPath(of url: URL) -> String {
        let path = url.absoluteURL.path(percentEncoded: true)
        return path.isEmpty ? "/" : path
    }

    /// §5.1.4 default-path: the request path up to, not including, its last `/` (or `/`).
    static func defaultPath(of url: URL) -> String {
        let path = requestPath(of: url)
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else {
            return "/"
        }
        return String(path[..<lastSlash])
    }

    /// §5.1.4 path-match.
    static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        let request = requestPath.utf8, cookie = cookiePath.utf8
        guard request.starts(with: cookie) else { return false }
        if request.count == cookie.count || cookie.last == UInt8(ascii: "/") { return true }
        return request.dropFirst(cookie.count).first == UInt8(ascii: "/")
    }

    /// §5.1.3 domain-match: identical, or `host` ends with `.` + `domain` and is a host name
    /// (an IP address only ever matches itself). Both are canonical (lower-case).
    static func domainMatches(host: String, domain: String) -> Bool {
        let hostBytes = host.utf8, domainBytes = domain.utf8
        guard hostBytes.reversed().starts(with: domainBytes.reversed()) else { return false }
        if hostBytes.count == domainBytes.count { return true }
        guard !domainBytes.isEmpty, !IPAddress.isAddress(host: host) else { return false }
        return hostBytes.dropLast(domainBytes.count).last == UInt8(ascii: ".")
    }


    /// Whether `Secure` cookies may be set by and sent to the URL: `https` and `wss`, and (as
    /// browsers and curl do, the W3C "potentially trustworthy" origins) any loopback host:
    /// `localhost`, `*.localhost`, `127.0.0.0/8`, `::1`.
    static func isSecureOrigin(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        if scheme == "https" || scheme == "wss" { return true }
        guard let host = canonicalHost(of: url) else { return false }
        return host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "[::1]"
            || IPAddress.canonical(host: host)?.hasPrefix("127.") == true
    }

    /// Whether a name and value can go into a `Cookie` header unchanged: a non-empty name, no
    /// control characters, no `;` in either and no `=` in the name.
    static func isSendable(name: String, value: String) -> Bool {
        !name.isEmpty && !containsControlCharacter(name.utf8) && !containsControlCharacter(value.utf8)
            && !name.utf8.contains { $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: "=") }
            && !value.utf8.contains(UInt8(ascii: ";"))
    }

    /// Whether the text has a control character other than HTAB (%x00-08, %x0A-1F, %x7F).
    static func containsControlCharacter<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        bytes.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }

    // MARK: - Byte helpers

    private static let semicolon = UInt8(ascii: ";")
    private static let equalsSign = UInt8(ascii: "=")

    /// The bytes as a string without leading and trailing whitespace (SP and HTAB).
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> String {
        let isWhitespace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isWhitespace($0) }),
              let last = bytes.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    /// §5.2.2: an optional `-` then one or more digits (anything else: nil, the attribute is
    /// ignored). Saturates instead of overflowing.
    private static func maxAgeSeconds(_ value: String) -> Int64? {
        var digits = Substring(value)
        let negative = digits.hasPrefix("-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var result: Int64 = 0
        for byte in digits.utf8 {
            let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - 0x30))
            if overflow1 || overflow2 { result = Int64.max; break }
            result = sum
        }
        return negative ? -result : result
    }
}
