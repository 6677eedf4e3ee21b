import Foundation

/// A `Proxy` checked and taken apart: its URL without credentials (what libcurl gets and what
/// messages show) and the credentials, from the parameters or else from the URL.
struct ProxyURL: Sendable, Hashable {
    static let schemes = ["http", "https", "socks5", "socks5h"]

    /// `scheme://host[:port]`, without credentials.
    let url: String
    let scheme: String
    let username: String?
    let password: String?

    init(_ proxy: Proxy) throws(HTTPTransportError) {
        let text = proxy.url
        func invalid(_ reason: String) -> HTTPTransportError {
            HTTPTransportError(code: .invalidURL, message: "The session's proxy URL '\(Self.redacted(text))' \(reason).")
        }
        // ASCII only (as a URL is): then a Character is one scalar, and no combining mark can
        // hide an `@` or a `:` from the parsing below.
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) else {
            throw invalid("contains spaces, control or non-ASCII characters: percent-encode them, "
                + "or pass the credentials as Proxy(_:username:password:)")
        }
        guard let schemeEnd = text.range(of: "://") else {
            throw invalid("has no scheme: write it as http://\(Self.redacted(text)) (or https://, socks5://, socks5h://)")
        }
        scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard Self.schemes.contains(scheme) else {
            throw invalid("has the scheme '\(scheme)', which is not supported: use http://, https://, socks5:// or socks5h://")
        }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        guard rest[authorityEnd...].isEmpty || rest[authorityEnd...] == "/" else {
            throw invalid("has a path, query or fragment: a proxy URL is scheme://host:port")
        }
        var hostPort = rest[..<authorityEnd]
        var urlUser: String?, urlPassword: String?
        if let at = hostPort.lastIndex(of: "@") {
            let userInfo = hostPort[..<at]
            hostPort = hostPort[hostPort.index(after: at)...]
            let colon = userInfo.firstIndex(of: ":")
            guard let user = String(userInfo[..<(colon ?? userInfo.endIndex)]).removingPercentEncoding,
                  let password = colon.map({ String(userInfo[userInfo.index(after: $0)...]).removingPercentEncoding }) ?? .some(nil)
            else { throw invalid("has badly percent-encoded credentials") }
            urlUser = user
            urlPassword = password
        }
        let (host, port) = try Self.split(hostPort, invalid: invalid)
        url = "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "")
        username = proxy.username ?? urlUser
        password = proxy.password ?? (proxy.username == nil ? urlPassword : nil)
    }

    /// The host (IPv6 literals in brackets) and the port, each checked.
    private static func split(_ hostPort: Substring, invalid: (String) -> HTTPTransportError)
        throws(HTTPTransportError) -> (host: String, port: Int?) {
        var host = hostPort
        var portText: Substring?
        if hostPort.first == "[" {
            guard let close = hostPort.firstIndex(of: "]"), IPAddress(hostPort[hostPort.index(after: hostPort.startIndex)..<close]) != nil
            else { throw invalid("has an invalid IPv6 address") }
            host = hostPort[...close]
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw invalid("has text after its IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<colon]
            portText = hostPort[hostPort.index(after: colon)...]
        }
        guard !host.isEmpty else { throw invalid("has no host") }
        guard host.first == "[" || host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }) else {
            throw invalid("has an invalid host name '\(host)'")
        }
        guard let portText else { return (String(host), nil) }
        guard let port = Int(portText), (1...65535).contains(port), portText.allSatisfy(\.isASCII) else {
            throw invalid("has an invalid port '\(portText)' (1–65535)")
        }
        return (String(host), port)
    }

    /// A proxy URL as it may be shown: without the password, also when the scheme is missing or
    /// the text holds what is no URL. Read on scalars (a combining mark glued to an `@` hides
    /// nothing); everything between the user name and the last `@` is hidden.
    static func redacted(_ text: String) -> String {
        let scalars = text.unicodeScalars
        // The user info starts after `scheme://` when the text starts with one, else at the start.
        let isSchemeScalar = { (scalar: Unicode.Scalar) in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "+-.".unicodeScalars.contains(scalar))
        }
        let separator = scalars.firstRange(of: "://".unicodeScalars)
        let start = separator.flatMap { scalars[..<$0.lowerBound].allSatisfy(isSchemeScalar) ? $0.upperBound : nil }
            ?? scalars.startIndex
        guard let at = scalars[start...].lastIndex(of: "@") else { return text }
        let userInfo = scalars[start..<at]
        let user = userInfo.firstIndex(of: ":").map { userInfo[..<$0] } ?? userInfo
        return String(scalars[..<start]) + String(user) + (userInfo.contains(":") ? ":***" : "") + String(scalars[at...])
    }
}

/// `no_proxy` matching, libcurl's rules (7.88, `Curl_check_noproxy`) made whole: the one rule
/// that decides whether a request goes through the proxy whenever anything here depends on the
/// answer (an explicit proxy, or an address policy). libcurl is then told the decision
/// (`ConnectionOptions.route(for:)`), never left to decide again, so where its own matching
/// differs (7.88 ignores IPv6 ranges, and reads `/0` as an exact address) the two cannot
/// disagree. CIDR ranges are matched as written, both families, `/0` covering the family.
struct NoProxyList: Sendable {
    /// One entry, read once (a list is checked on every send).
    private struct Token: Sendable {
        /// As written, lowercased: compared with an address host.
        let written: String
        /// Without a leading or trailing dot, lowercased: a name host's suffix.
        let suffix: String
        /// The range, when the entry is `address/bits`.
        let range: (network: IPAddress, bits: Int)?
        /// Whether the entry has a `/` (a range, or one that reads as none and matches nothing).
        let isRange: Bool

        init(_ token: Substring) {
            written = token.lowercased()
            var name = token
            if name.last == "." { name = name.dropLast() }
            if name.first == "." { name = name.dropFirst() }
            suffix = name.lowercased()
            isRange = token.contains(where: { $0 == "/" })
            guard let slash = token.firstIndex(of: "/"), let network = IPAddress(token[..<slash]),
                  let bits = Int(token[token.index(after: slash)...]),
                  bits >= 0, bits <= (network.family == .v4 ? 32 : 128) else {
                range = nil
                return
            }
            range = (network, bits)
        }
    }

    let text: String
    /// `*` alone: every host.
    private let coversAll: Bool
    private let tokens: [Token]
    /// The last host asked about and the answer: a session sends to the same few hosts, and
    /// reading a host as an address costs more than comparing it with the last one.
    private let lastAnswer = Locked<(host: String, covered: Bool)?>(nil)

    init(_ text: String) {
        self.text = text
        coversAll = text == "*"
        // Split on scalars, as libcurl splits on bytes: a combining mark after a comma does not
        // join two tokens into one.
        tokens = text.unicodeScalars.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" })
            .map { Token(Substring($0)) }
    }

    /// Whether `host` (as in the URL) is reached without the proxy.
    func covers(host rawHost: String) -> Bool {
        if coversAll { return true }
        if let last = lastAnswer.withLock({ $0 }), last.host == rawHost { return last.covered }
        let covered = matches(host: rawHost)
        lastAnswer.withLock { $0 = (rawHost, covered) }
        return covered
    }

    private func matches(host rawHost: String) -> Bool {
        var host = Substring(rawHost)
        if host.first == "[", host.last == "]" { host = host.dropFirst().dropLast() }
        // libcurl compares the IDNA (punycode) form; only ASCII names compare the same here.
        guard !host.isEmpty, host.allSatisfy(\.isASCII) else { return false }
        let address = IPAddress(host)
        if address == nil, host.last == "." { host = host.dropLast() }
        let text = host.lowercased()
        for token in tokens {
            if let address {
                if let (network, bits) = token.range {
                    if Self.matches(address, network, bits: bits) { return true }
                } else if !token.isRange, token.written == text {
                    return true
                }
            } else if !token.suffix.isEmpty, text == token.suffix || text.hasSuffix("." + token.suffix) {
                return true
            }
        }
        return false
    }

    private static func matches(_ address: IPAddress, _ network: IPAddress, bits: Int) -> Bool {
        guard network.family == address.family else { return false }
        let width = address.family == .v4 ? 32 : 128
        if bits == 0 { return true }
        if bits == width { return network == address }
        // Compare the top `bits` of the 128-bit value (IPv4 sits in the low 32 bits).
        let shift = UInt64(width - bits)
        func top(_ value: IPAddress) -> (UInt64, UInt64) {
            if value.family == .v4 { return (0, value.low >> shift) }
            if shift >= 64 { return (value.high >> (shift - 64), 0) }
            return (value.high, value.low >> shift)
        }
        return top(network) == top(address)
    }
}

/// The proxy that libcurl takes from the environment when `Session.Configuration.proxy` is nil
/// (libcurl 7.88, `detect_proxy`): `no_proxy` (else `NO_PROXY`) exempts hosts; then
/// `http_proxy` (lower case only) for `http://`, `https_proxy` (else `HTTPS_PROXY`) for
/// `https://`; then `all_proxy` (else `ALL_PROXY`). Empty variables count as unset.
struct ProxyEnvironment: Sendable {
    let value: @Sendable (String) -> String?
    /// The last `no_proxy` list read, so an unchanged variable is not parsed again on every send.
    private let lastNoProxy = Locked<NoProxyList?>(nil)

    init(value: @escaping @Sendable (String) -> String?) { self.value = value }

    /// The process's environment, read at each call (libcurl reads it at each transfer).
    static let process = ProxyEnvironment { name in
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return String(cString: value)
    }

    /// The variable and proxy URL libcurl would use for a request, or nil for a direct connection.
    func proxy(scheme: String, host: String) -> (variable: String, url: String)? {
        if let exempt = first(of: ["no_proxy", "NO_PROXY"]), covers(exempt.value, host: host) { return nil }
        let names: [String]
        switch scheme.lowercased() {
        case "http": names = ["http_proxy"]
        case "https": names = ["https_proxy", "HTTPS_PROXY"]
        default: names = []
        }
        return first(of: names + ["all_proxy", "ALL_PROXY"]).map { (variable: $0.name, url: $0.value) }
    }

    private func covers(_ noProxy: String, host: String) -> Bool {
        let list = lastNoProxy.withLock { last in
            if let last, last.text == noProxy { return last }
            last = NoProxyList(noProxy)
            return last ?? NoProxyList(noProxy)
        }
        return list.covers(host: host)
    }

    private func first(of names: [String]) -> (name: String, value: String)? {
        for name in names {
            if let found = value(name), !found.isEmpty { return (name, found) }
        }
        return nil
    }
}
