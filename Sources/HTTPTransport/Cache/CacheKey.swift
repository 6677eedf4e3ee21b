import COpenSSLDigest
import Foundation

/// Which stored responses may answer a request: the URL, and a digest of the request's
/// credentials, so a response stored for one token is never served to another token or to a
/// request with none. Credentials are only ever kept as that digest: never in memory, on disk
/// or in a file name in clear.
struct CacheKey: Hashable, Sendable {
    /// The absolute URL without its fragment (a fragment never reaches the server).
    let url: String
    /// SHA-256 of `url`, as hex: the name of the URL's folder in a cache directory.
    let urlDigest: String
    /// SHA-256 of the credential headers' names and values, as hex.
    let credentialDigest: String

    /// The key of `request`. `credentialHeaders` come from the session; `Cookie` always counts
    /// as a credential too (a session cookie is a token like any other).
    init(request: RawRequest, credentialHeaders: [String]) {
        url = Self.url(request.url)
        urlDigest = SHA256Digest.hex(of: Data(url.utf8))
        var names = Set(credentialHeaders.map { $0.lowercased() })
        names.insert("cookie")
        credentialDigest = SHA256Digest.hex(of: Self.fieldsDigestInput(names: names.sorted(), headers: request.headers))
    }

    /// `url` as a key: absolute, without a fragment.
    static func url(_ url: URL) -> String {
        let text = url.absoluteString
        guard let hash = text.firstIndex(of: "#") else { return text }
        return String(text[..<hash])
    }

    /// An unambiguous byte string of the named request fields (length-prefixed, so no choice of
    /// values can make two different sets of fields read alike). Absent and empty differ.
    static func fieldsDigestInput(names: [String], headers: HTTPHeaders) -> Data {
        var bytes = Data()
        func append(_ text: String) {
            bytes.append(contentsOf: "\(text.utf8.count):".utf8)
            bytes.append(contentsOf: text.utf8)
        }
        for name in names {
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
}

/// The request fields a stored response was selected by (its `Vary` field, RFC 9111 §4.1).
/// The request's values are kept only as a digest, so a `Vary: Authorization` response does not
/// put the token in the cache.
struct VaryRule: Sendable, Equatable {
    /// The lower-cased names of `Vary`, sorted, without duplicates.
    let names: [String]

    /// The rule of a response; nil for `Vary: *`, which no later request matches (never stored).
    init?(responseHeaders: HTTPHeaders) {
        var names = Set<String>()
        for line in responseHeaders.values("Vary") {
            for name in line.split(separator: ",") {
                let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
                if trimmed == "*" { return nil }
                if !trimmed.isEmpty { names.insert(trimmed) }
            }
        }
        self.names = names.sorted()
    }

    init(names: [String]) { self.names = names }

    /// The digest of `request`'s values of these fields, as hex.
    func digest(of request: RawRequest) -> String {
        SHA256Digest.hex(of: CacheKey.fieldsDigestInput(names: names, headers: request.headers))
    }
}

/// SHA-256 through OpenSSL's libcrypto.
enum SHA256Digest {
    /// The 32-byte digest of `data`.
    static func bytes(of data: some DataProtocol & ContiguousBytes) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        data.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = SHA256(input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count, output.baseAddress)
            }
        }
        return digest
    }

    /// The digest of `data` as lower-case hex.
    static func hex(of data: some DataProtocol & ContiguousBytes) -> String {
        hex(bytes(of: data))
    }

    /// Lower-case hex of `bytes`.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
