import COpenSSLDigest
import Foundation

/// Which stored responses may answer a request: the URL, and a digest of the request's
/// credentials and of the connection it goes through, so a response stored for one token is
/// never served to another token or to a request with none, and a response that came through
/// one connection (a Unix socket, a resolve override, a proxy, a client certificate, other trust
/// roots, pins or address policy) is never served to a session that connects differently. Credentials are only
/// ever kept as that digest: never in memory, on disk or in a file name in clear.
struct CacheKey: Hashable, Sendable {
    /// The absolute URL without its user info and fragment (a fragment never reaches the
    /// server; user info is a credential, digested with the others).
    let url: String
    /// The salted SHA-256 of the credential headers' names and values, the URL's user info
    /// and the session's connection identity, as hex.
    let credentialDigest: String

    /// The key of `request`. `credentialHeaders` come from the session; `Cookie` always counts
    /// as a credential too (a session cookie is a token like any other), as does user info in
    /// the URL. `connection` is the session's `CacheKey.connectionIdentity`.
    init(request: RawRequest, credentialHeaders: [String], connection: String, digester: FieldDigester) {
        let parts = Self.parts(request.url)
        url = parts.url
        var names = credentialHeaders.map { $0.lowercased() }
        names.append("cookie")
        names.sort()
        credentialDigest = digester.digest(names, of: request.headers, context: [parts.userInfo ?? "", connection])
    }

    /// `url` as a key: absolute, without user info and fragment.
    static func url(_ url: URL) -> String { parts(url).url }

    /// The key URL and the user info taken out of it (as written, percent-encoded), if any.
    static func parts(_ url: URL) -> (url: String, userInfo: String?) {
        var text = url.absoluteString
        if let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) { text = String(text[..<hash]) }
        guard let schemeEnd = text.range(of: "://") else { return (text, nil) }
        let authority = text[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" }
        guard let at = authority.lastIndex(of: "@") else { return (text, nil) }
        let userInfo = String(authority[..<at])
        text.removeSubrange(schemeEnd.upperBound...at)
        return (text, userInfo)
    }

    /// The parts of a session's configuration that decide which server a URL reaches (and may
    /// reach) and how it is authenticated, as one string (length-prefixed parts, so none can
    /// be mistaken for another). Computed once per session; two sessions share stored
    /// responses only when theirs are equal. With no explicit proxy, the environment's proxy
    /// variables count.
    static func connectionIdentity(security: Security, configuration: Session.Configuration) -> String {
        var parts: [String] = ["socket", configuration.unixSocketPath ?? "-", "resolve"]
        parts += configuration.resolveOverrides.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
        if let proxy = configuration.proxy {
            parts += ["proxy", proxy.isDirect ? "direct" : proxy.url, proxy.username ?? "-", proxy.password ?? "-"]
            parts += proxy.noProxy
        } else {
            let environment = ProcessInfo.processInfo.environment
            parts.append("environment")
            for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] {
                parts += [name, environment[name] ?? "-"]
            }
        }
        parts += ["roots", security.trustedRootCertificates?.path ?? "-", "client"]
        switch security.clientCertificate?.kind {
        case nil: parts.append("-")
        case .pem(let certificate, let key)?: parts += ["pem", certificate.path, key.path]
        case .pkcs12(let bundle)?: parts += ["pkcs12", bundle.path]
        }
        parts.append(security.clientCertificate?.password ?? "-")
        // A hit connects nowhere, so the address policy is checked by keeping stores apart: a
        // `.publicOnly` session is never served what an `.any` session fetched from an internal
        // address. Closures cannot be compared: a `.custom` policy shares with no other session.
        parts += ["addresses", addressPolicyIdentity(configuration.addressPolicy), "pins"]
        parts += security.certificates.map { "\($0.host) \($0.fingerprint)" }.sorted()
        return String(decoding: FieldDigester.lengthPrefixed(parts), as: UTF8.self)
    }

    private static func addressPolicyIdentity(_ policy: AddressPolicy) -> String {
        switch policy.rule {
        case .any, .publicOnly: policy.name
        case .custom: ".custom " + UUID().uuidString
        }
    }
}

/// The fields a stored response was selected by (its `Vary` field, RFC 9111 §4.1). The request's
/// values are kept only as a digest, so a `Vary: Authorization` response does not put the token
/// in the cache.
struct VaryRule: Sendable, Equatable {
    /// The lower-cased names of `Vary`, sorted, without duplicates.
    let names: [String]

    /// The rule of a response; nil for `Vary: *`, which no later request matches (never stored).
    init?(responseHeaders: HTTPHeaders) {
        var names = Set<String>()
        for line in responseHeaders.values("Vary") {
            for name in line.split(separator: ",") {
                let trimmed = name.trimmingHeaderWhitespace().lowercased()
                if trimmed == "*" { return nil }
                if !trimmed.isEmpty { names.insert(trimmed) }
            }
        }
        self.names = names.sorted()
    }

    init(names: [String]) { self.names = names }

    /// The digest of `request`'s values of these fields, as hex.
    func digest(of request: RawRequest, using digester: FieldDigester) -> String {
        digester.digest(names, of: request.headers)
    }
}

/// Digests of request fields (credentials, varied fields), salted with the cache's own random
/// salt (`CacheStorage.salt`): a digest in a cache file cannot be looked up in a table
/// precomputed for guessable credentials such as a weak Basic password, and two caches give the
/// same user different digests.
struct FieldDigester: Sendable {
    private let salt: [UInt8]
    /// The digest of no fields (a response without `Vary`, the common case), computed once.
    private let noFields: String

    init(salt: [UInt8]) {
        self.salt = salt
        noFields = SHA256Digest.hex(of: salt)
    }

    /// The digest of the named fields of `headers` (`names` sorted and lower-case; a name
    /// repeated in a row counts once) and of the `context` strings, as hex.
    func digest(_ names: [String], of headers: HTTPHeaders, context: [String] = []) -> String {
        guard !names.isEmpty || !context.isEmpty else { return noFields }
        return SHA256Digest.hex(of: salt + Self.lengthPrefixed(context) + Self.input(names: names, headers: headers))
    }

    /// `strings` as one unambiguous byte string: each one's length, a colon, its bytes.
    static func lengthPrefixed(_ strings: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for text in strings {
            bytes.append(contentsOf: String(text.utf8.count).utf8)
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: text.utf8)
        }
        return bytes
    }

    /// An unambiguous byte string of the named fields (length-prefixed, so no choice of values
    /// can make two different sets of fields read alike). Absent and empty differ.
    static func input(names: [String], headers: HTTPHeaders) -> [UInt8] {
        var bytes: [UInt8] = []
        func append(_ text: String) { bytes += lengthPrefixed([text]) }
        for (index, name) in names.enumerated() where index == 0 || names[index - 1] != name {
            append(name)
            let values = headers.values(name)
            if values.isEmpty {
                bytes.append(UInt8(ascii: "-"))
            } else {
                bytes.append(UInt8(ascii: "+"))
                append(normalizedFieldValue(values))
            }
        }
        return bytes
    }

    /// Field lines combined as one value (RFC 9111 §4.1): joined with `", "`, whitespace runs
    /// collapsed, no whitespace around commas.
    static func normalizedFieldValue(_ values: [String]) -> String {
        values.joined(separator: ",")
            .split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ") }
            .joined(separator: ",")
    }

    /// 32 random bytes.
    static func randomSalt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}

extension Session {
    /// What a shared `HTTPCache` keys this session's responses by besides URL and credentials.
    var cacheConnectionIdentity: String { features.cacheConnectionIdentity }
}
