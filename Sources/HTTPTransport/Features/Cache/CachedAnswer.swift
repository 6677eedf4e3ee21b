import Foundation

/// Answers to a request that carries its own `If-None-Match`, `If-Modified-Since` or `Range`,
/// made from a stored response the cache may serve without validation (RFC 9111 §4.3.2,
/// RFC 9110 §13.2.2 and §14):
///
/// - `If-None-Match` naming the stored entity tag (weak comparison, or `*`) → `304`;
///   otherwise, without `If-None-Match`, an `If-Modified-Since` (a valid HTTP-date) not older
///   than the stored `Last-Modified` (else its `Date`, else when it arrived) → `304`;
/// - then one byte range (`bytes=0-99`, `bytes=100-`, `bytes=-100`) of a stored `200` without
///   a content coding → `206`, or `416` when the range starts past the end;
/// - anything else → the stored response itself.
///
/// The cache leaves to the network (untouched, nothing stored): several ranges (a multipart
/// answer), a range of another unit or of invalid syntax, a range of a stored response with a
/// content coding (its body is kept decoded, the range would count encoded bytes) or another
/// status than 200, and `If-Match`, `If-Unmodified-Since` and `If-Range`, which only the origin
/// server can evaluate (`CachePolicy.originPreconditionFields`).
enum CachedAnswer {
    /// Fields a `304` made by the cache carries, when the stored response has them (RFC 9110 §15.4.5).
    static let notModifiedFields: Set<String> = ["cache-control", "content-location", "date", "etag", "expires",
                                                 "vary", "last-modified", "age"]

    /// The answer to `request` from `full` (the stored response as a hit serves it), or nil
    /// when only the network can answer it.
    static func answer(_ request: RawRequest, full: RawResponse, stored: StoredResponse) -> RawResponse? {
        if isNotModified(request, stored: stored) {
            var answer = full
            answer.statusCode = .notModified
            answer.headers = HTTPHeaders(full.headers.filter { notModifiedFields.contains($0.name.lowercased()) })
            answer.data = nil
            return answer
        }
        guard let text = request.headers.first("Range") else { return full }
        guard let range = ByteRange(text), stored.status == 200, !hasContentCoding(stored.headers) else { return nil }
        return partial(full, range: range)
    }

    /// Whether the request's own validators match the stored response (§13.2.2's order:
    /// `If-None-Match` decides when present; `If-Modified-Since` only without it).
    static func isNotModified(_ request: RawRequest, stored: StoredResponse) -> Bool {
        let tags = request.headers.values("If-None-Match")
        if !tags.isEmpty {
            let offered = tags.flatMap(entityTags)
            if offered.contains("*") { return true }
            guard let storedTag = stored.headers.first("ETag") else { return false }
            return offered.contains { CachePolicy.opaqueTag($0) == CachePolicy.opaqueTag(storedTag) }
        }
        let since = request.headers.values("If-Modified-Since")
        guard since.count == 1, let date = HTTPDate.parse(since[0], now: stored.responseTime) else { return false }
        let modified = stored.headers.first("Last-Modified").flatMap(CacheFreshness.httpDate)
            ?? stored.headers.first("Date").flatMap(CacheFreshness.httpDate) ?? stored.responseTime
        return modified <= date
    }

    /// The entity tags of an `If-None-Match` line (`*`, `"a"`, `W/"b"`), commas inside quotes
    /// kept; unquoted garbage is dropped.
    static func entityTags(_ line: String) -> [String] {
        var tags: [String] = []
        var rest = Substring(line)
        while let start = rest.firstIndex(where: { $0 != " " && $0 != "\t" && $0 != "," }) {
            rest = rest[start...]
            if rest.hasPrefix("*") {
                tags.append("*")
                rest = rest.dropFirst()
                continue
            }
            let weak = rest.hasPrefix("W/\"")
            let open = weak ? rest.index(rest.startIndex, offsetBy: 2) : rest.startIndex
            guard rest[open] == "\"", let close = rest[rest.index(after: open)...].firstIndex(of: "\"") else {
                rest = rest.drop { $0 != "," }
                continue
            }
            tags.append(String(rest[rest.startIndex...close]))
            rest = rest[rest.index(after: close)...]
        }
        return tags
    }

    private static func hasContentCoding(_ headers: HTTPHeaders) -> Bool {
        headers.values("Content-Encoding").contains { value in
            value.split(separator: ",").contains { $0.trimmingHeaderWhitespace().lowercased() != "identity" }
        }
    }

    /// The `206` with the range's bytes, or the `416` of a range that starts past the end.
    private static func partial(_ full: RawResponse, range: ByteRange) -> RawResponse {
        let body = full.data ?? Data()
        var answer = full
        var fields = full.headers.filter { !["content-length", "content-range"].contains($0.name.lowercased()) }
        guard let (first, last) = range.bounds(length: body.count) else {
            answer.statusCode = .rangeNotSatisfiable
            answer.headers = ["Content-Range": "bytes */\(body.count)", "Content-Length": "0"]
            answer.data = nil
            return answer
        }
        fields.append(.init(name: "Content-Range", value: "bytes \(first)-\(last)/\(body.count)"))
        fields.append(.init(name: "Content-Length", value: String(last - first + 1)))
        answer.statusCode = .partialContent
        answer.headers = HTTPHeaders(fields)
        answer.data = body.subdata(in: body.startIndex + first..<body.startIndex + last + 1)
        return answer
    }
}

/// One byte range of a `Range` field (RFC 9110 §14.1.2): `bytes=first-[last]` or `bytes=-suffix`.
struct ByteRange: Equatable, Sendable {
    /// The first byte, or nil for a suffix range.
    let first: Int?
    /// The last byte (`first-last`), or the suffix length (`-suffix`); nil for `first-`.
    let last: Int?

    /// The range of `text`, or nil unless it is exactly one valid byte range (the unit compared
    /// case-insensitively, optional whitespace around the list allowed).
    init?(_ text: String) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].trimmingHeaderWhitespace().lowercased() == "bytes" else { return nil }
        let specs = parts[1].split(separator: ",").map { $0.trimmingHeaderWhitespace() }.filter { !$0.isEmpty }
        guard specs.count == 1 else { return nil }
        let bounds = specs[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2 else { return nil }
        let first = Self.number(bounds[0]), last = Self.number(bounds[1])
        switch (bounds[0].isEmpty, bounds[1].isEmpty) {
        case (true, false):
            guard let last else { return nil }
            self.first = nil
            self.last = last
        case (false, _):
            guard let first, bounds[1].isEmpty || (last.map { $0 >= first } ?? false) else { return nil }
            self.first = first
            self.last = bounds[1].isEmpty ? nil : last
        default:
            return nil
        }
    }

    /// The first and last byte of a representation of `length` bytes, or nil when unsatisfiable.
    func bounds(length: Int) -> (Int, Int)? {
        guard length > 0 else { return nil }
        guard let first else {
            guard let suffix = last, suffix > 0 else { return nil }
            return (max(0, length - suffix), length - 1)
        }
        guard first < length else { return nil }
        return (first, min(last ?? length - 1, length - 1))
    }

    /// Digits as a number; a number too large for an `Int` reads as `Int.max`.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text) ?? .max
    }
}
