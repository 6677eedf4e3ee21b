import Foundation

/// The `Cache-Control` directives of a request or a response (RFC 9111 §5.2) that a private
/// cache acts on. Parsing is defensive: the bytes come from servers and interceptors.
///
/// - Names compare case-insensitively; the first occurrence of a directive wins (§4.2.1).
/// - A `max-age` whose value is not a number makes the response stale (the conservative reading);
///   a bad `max-stale` or `min-fresh` is ignored, so it loosens nothing.
/// - `no-cache` with field names (`no-cache="Set-Cookie"`) is treated as plain `no-cache`:
///   always revalidating is what that form allows at most.
/// - `private` is allowed in a private cache (it only matters to shared ones), as are
///   `s-maxage` and `proxy-revalidate`, which apply to shared caches alone and are ignored.
struct CacheDirectives: Sendable, Equatable {
    /// `max-age=N`, in seconds.
    var maxAge: Int?
    /// Request `max-stale[=N]`: staleness the client accepts (`Int.max` without a value).
    var maxStale: Int?
    /// Request `min-fresh=N`: the response must stay fresh this much longer.
    var minFresh: Int?
    /// Response `stale-while-revalidate=N` (RFC 5861): seconds past its lifetime during which
    /// the response may be served while it is revalidated in the background.
    var staleWhileRevalidate: Int?
    var noCache = false
    var noStore = false
    var onlyIfCached = false
    var mustRevalidate = false
    var isPublic = false
    var isPrivate = false

    /// Values above this count as this (RFC 9111 §1.2.2: 2^31 seconds).
    static let largestDelta = 2_147_483_648

    /// No directive.
    init() {}

    /// The directives of every `Cache-Control` field line; for a request without one, a
    /// `Pragma: no-cache` counts as `no-cache` (RFC 9111 §5.4).
    init(_ headers: HTTPHeaders, isRequest: Bool = false) {
        let lines = headers.values("Cache-Control")
        var seen = Set<String>()
        for line in lines {
            for (name, value) in Self.directives(in: line) where seen.insert(name).inserted {
                apply(name, value)
            }
        }
        if isRequest, lines.isEmpty, let pragma = headers["Pragma"],
           Self.directives(in: pragma).contains(where: { $0.name == "no-cache" }) {
            noCache = true
        }
    }

    private mutating func apply(_ name: String, _ value: String?) {
        switch name {
        case "max-age": maxAge = value.flatMap(Self.deltaSeconds) ?? 0
        case "max-stale": maxStale = value == nil ? Int.max : value.flatMap(Self.deltaSeconds)
        case "min-fresh": minFresh = value.flatMap(Self.deltaSeconds)
        case "stale-while-revalidate": staleWhileRevalidate = value.flatMap(Self.deltaSeconds)
        case "no-cache": noCache = true
        case "no-store": noStore = true
        case "only-if-cached": onlyIfCached = true
        case "must-revalidate": mustRevalidate = true
        case "public": isPublic = true
        case "private": isPrivate = true
        default: break
        }
    }

    /// A `delta-seconds` value (digits only, quotes tolerated), capped at 2^31; nil when invalid.
    static func deltaSeconds(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        // Too many digits for an Int is still a valid, very large value.
        guard text.utf8.count <= 10, let value = Int(text) else { return largestDelta }
        return min(value, largestDelta)
    }

    /// The `name[=value]` pairs of one field line: names lower-cased, quoted values unquoted;
    /// commas inside quotes do not split.
    static func directives(in line: String) -> [(name: String, value: String?)] {
        var result: [(name: String, value: String?)] = []
        for item in splitOutsideQuotes(line) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingHeaderWhitespace().lowercased()
            guard !name.isEmpty else { continue }
            var value = parts.count > 1 ? parts[1].trimmingHeaderWhitespace() : nil
            if let quoted = value, quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") {
                value = quoted.dropFirst().dropLast()
            }
            result.append((name, value.map(String.init)))
        }
        return result
    }

    private static func splitOutsideQuotes(_ line: String) -> [Substring] {
        var items: [Substring] = []
        var start = line.startIndex
        var inQuotes = false
        var index = line.startIndex
        while index < line.endIndex {
            switch line[index] {
            case "\"": inQuotes.toggle()
            case "," where !inQuotes:
                items.append(line[start..<index])
                start = line.index(after: index)
            default: break
            }
            index = line.index(after: index)
        }
        items.append(line[start...])
        return items
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (the optional whitespace of header syntax);
    /// a byte scan, much cheaper than Foundation's `trimmingCharacters(in:)`.
    func trimmingHeaderWhitespace() -> Substring {
        func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        guard let first = utf8.firstIndex(where: { !isWhitespace($0) }),
              let last = utf8.lastIndex(where: { !isWhitespace($0) })
        else { return self[endIndex...] }
        return self[first...last]
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (see `Substring.trimmingHeaderWhitespace()`).
    func trimmingHeaderWhitespace() -> Substring { self[...].trimmingHeaderWhitespace() }
}
