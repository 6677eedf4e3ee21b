import COpenSSLDigest
import Foundation

/// Which stored responses may answer a request: the URL, and a digest of the request's
/// credentials, so a response stored for one token is never served to another token or to a
/// request with none. Credentials are only ever kept as that digest: never in memory, on disk
/// or in a file name in clear.
struct CacheKey: Hashable, Sendable {
    /// The absolute URL without its fragment (a fragment never reaches the server).
    let url: String
    /// The salted SHA-256 of the credential headers' names and values, as hex.
    let credentialDigest: String

    /// The key of `request`. `credentialHeaders` come from the session; `Cookie` always counts
    /// as a credential too (a session cookie is a token like any other).
    init(request: RawRequest, credentialHeaders: [String], digester: FieldDigester) {
        url = Self.url(request.url)
        var names = credentialHeaders.map { $0.lowercased() }
        names.append("cookie")
        names.sort()
        credentialDigest = digester.digest(names, of: request.headers)
    }

    /// `url` as a key: absolute, without a fragment.
    static func url(_ url: URL) -> String {
        let text = url.absoluteString
        guard let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) else { return text }
        return String(text[..<hash])
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
    /// repeated in a row counts once), as hex.
    func digest(_ names: [String], of headers: HTTPHeaders) -> String {
        names.isEmpty ? noFields : SHA256Digest.hex(of: salt + Self.input(names: names, headers: headers))
    }

    /// An unambiguous byte string of the named fields (length-prefixed, so no choice of values
    /// can make two different sets of fields read alike). Absent and empty differ.
    static func input(names: [String], headers: HTTPHeaders) -> [UInt8] {
        var bytes: [UInt8] = []
        func append(_ text: String) {
            bytes.append(contentsOf: String(text.utf8.count).utf8)
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: text.utf8)
        }
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
