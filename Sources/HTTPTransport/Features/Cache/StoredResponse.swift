import Foundation

/// A response as the cache keeps it: what is served on a hit, plus what selects it (URL,
/// credential digest, `Vary` rule and the digest of the storing request's varied fields) and
/// when it was fetched (for its age). What a hit needs from its headers (directives, lifetime,
/// `Date`, `Age`) is read once here, not on every hit.
struct StoredResponse: Sendable, Equatable {
    /// `CacheKey.url`.
    let url: String
    /// `CacheKey.credentialDigest`.
    let credentialDigest: String
    /// The fields named by the response's `Vary`.
    let vary: VaryRule
    /// The storing request's values of those fields, as a digest.
    let varyDigest: String
    let status: Int
    /// Stored headers: hop-by-hop fields and `Set-Cookie` left out.
    let headers: HTTPHeaders
    let body: Data
    /// When the request that fetched (or last revalidated) it was sent, seconds since 1970.
    let requestTime: Double
    /// When its response arrived, seconds since 1970.
    let responseTime: Double

    /// The variant's name among its URL's stored responses: one per credential and `Vary`
    /// selection (so storing again replaces), made of hex digits and a dash only.
    let variantName: String
    /// The response's `Cache-Control`.
    let directives: CacheDirectives
    /// `freshness_lifetime`, `date_value` and `age_value` (RFC 9111 §4.2).
    private let lifetime: Double
    private let dateValue: Double
    private let ageValue: Double

    init(url: String, credentialDigest: String, vary: VaryRule, varyDigest: String, status: Int,
         headers: HTTPHeaders, body: Data, requestTime: Double, responseTime: Double) {
        self.url = url
        self.credentialDigest = credentialDigest
        self.vary = vary
        self.varyDigest = varyDigest
        self.status = status
        self.headers = headers
        self.body = body
        self.requestTime = requestTime
        self.responseTime = responseTime
        variantName = String(credentialDigest.prefix(32)) + "-" + String(varyDigest.prefix(32))
        directives = CacheDirectives(headers)
        dateValue = CacheFreshness.dateValue(headers, responseTime: responseTime)
        lifetime = CacheFreshness.lifetime(status: status, headers: headers, directives: directives, date: dateValue)
        ageValue = CacheFreshness.ageValue(headers)
    }

    /// Its age and lifetime at `now`.
    func freshness(now: Double) -> CacheFreshness {
        CacheFreshness(currentAge: CacheFreshness.currentAge(ageValue: ageValue, date: dateValue, requestTime: requestTime,
                                                              responseTime: responseTime, now: now),
                       lifetime: lifetime)
    }

    /// The same response with other headers and times (a 304 freshened it).
    func with(headers: HTTPHeaders, requestTime: Double, responseTime: Double) -> StoredResponse {
        StoredResponse(url: url, credentialDigest: credentialDigest, vary: vary, varyDigest: varyDigest, status: status,
                       headers: headers, body: body, requestTime: requestTime, responseTime: responseTime)
    }

    /// The bytes it occupies, roughly: body, header text and a fixed overhead.
    var cost: Int {
        headers.reduce(body.count + url.utf8.count + 256) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }
}

/// The file format of one stored response: a magic number, the payload's length and its SHA-256,
/// then the payload. A file whose size, magic, length or checksum disagrees is corrupt (a torn
/// write, a full disk, a garbled byte) and reads as nothing, never as a wrong body.
///
/// The file names its URL by `urlName` (the directory's salted digest of it), never the URL
/// itself: a URL's query may hold a token, and a cache file is not a place to keep one.
/// (Files of the first format, `HTCACHE1`, held the URL and now read as corrupt.)
enum StoredResponseCoding {
    static let magic = Array("HTCACHE2".utf8)
    static let prefixLength = 8 + 8 + 32

    /// The file bytes of `response`, its URL written as `urlName`.
    static func encode(_ response: StoredResponse, urlName: String) -> Data {
        var payload = Data()
        payload.reserveCapacity(response.cost)
        func string(_ text: String) {
            integer(UInt64(text.utf8.count), &payload)
            payload.append(contentsOf: text.utf8)
        }
        string(urlName)
        string(response.credentialDigest)
        string(response.varyDigest)
        integer(UInt64(response.vary.names.count), &payload)
        response.vary.names.forEach(string)
        integer(UInt64(response.status), &payload)
        integer(response.requestTime.bitPattern, &payload)
        integer(response.responseTime.bitPattern, &payload)
        integer(UInt64(response.headers.count), &payload)
        for field in response.headers {
            string(field.name)
            string(field.value)
        }
        integer(UInt64(response.body.count), &payload)
        payload.append(response.body)

        var file = Data(magic)
        file.reserveCapacity(prefixLength + payload.count)
        integer(UInt64(payload.count), &file)
        file.append(contentsOf: SHA256Digest.bytes(of: payload))
        file.append(payload)
        return file
    }

    /// The response in `file` for `url`, or nil when the file is not a whole, intact entry or
    /// names another URL than `urlName`.
    static func decode(_ file: Data, url: String, urlName: String) -> StoredResponse? {
        var reader = ByteReader(Array(file))
        guard reader.bytes(magic.count).map(Array.init) == magic, let length = reader.integer(),
              let checksum = reader.bytes(32), length == UInt64(reader.remaining),
              SHA256Digest.bytes(of: file.suffix(reader.remaining))[...] == checksum
        else { return nil }
        guard reader.string() == urlName, let credentialDigest = reader.string(), let varyDigest = reader.string(),
              let varyCount = reader.count(), let varyNames = reader.strings(varyCount),
              let status = reader.integer(), status < 1000,
              let requestTime = reader.integer().map(Double.init(bitPattern:)),
              let responseTime = reader.integer().map(Double.init(bitPattern:)),
              let fields = reader.fields(), let bodyLength = reader.count(),
              let body = reader.bytes(bodyLength), reader.remaining == 0
        else { return nil }
        return StoredResponse(url: url, credentialDigest: credentialDigest, vary: VaryRule(names: varyNames),
                              varyDigest: varyDigest, status: Int(status), headers: HTTPHeaders(fields),
                              body: Data(body), requestTime: requestTime, responseTime: responseTime)
    }

    private static func integer(_ value: UInt64, _ data: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }
}

/// Reads the entry format, checking every length against what is left.
private struct ByteReader {
    private let data: [UInt8]
    private var offset = 0

    init(_ data: [UInt8]) { self.data = data }

    var remaining: Int { data.count - offset }

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= remaining else { return nil }
        defer { offset += count }
        return data[offset..<offset + count]
    }

    mutating func integer() -> UInt64? {
        guard let bytes = bytes(8) else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A count or length: must fit what is left, so a garbled one cannot ask for much.
    mutating func count() -> Int? {
        guard let value = integer(), value <= UInt64(remaining) else { return nil }
        return Int(value)
    }

    mutating func string() -> String? {
        guard let length = count(), let bytes = bytes(length) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    mutating func strings(_ count: Int) -> [String]? {
        var result: [String] = []
        for _ in 0..<count {
            guard let text = string() else { return nil }
            result.append(text)
        }
        return result
    }

    mutating func fields() -> [HTTPHeaders.Field]? {
        guard let count = count() else { return nil }
        var result: [HTTPHeaders.Field] = []
        for _ in 0..<count {
            guard let name = string(), let value = string() else { return nil }
            result.append(HTTPHeaders.Field(name: name, value: value))
        }
        return result
    }
}
