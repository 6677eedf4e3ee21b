import Foundation

/// A recorded URL as a replay matches it: scheme, host and port (the scheme's default when
/// none is written), path, and the query as a bag of `name=value` pairs, so their order does
/// not matter. Where redaction put `<redacted>`, anything matches: a pair recorded as
/// `token=<redacted>` matches any `token` value, one recorded as
/// `redirect_uri=https://user:<redacted>@host` (a nested URL) any value of that shape, and a whole
/// pair recorded as `<redacted>` any one pair. User info is ignored: it is never sent as part of
/// the URL.
///
/// Parsed by hand rather than by `URLComponents`, which refuses the `<` and `>` of a redacted value.
struct ArchiveURLPattern: Sendable {
    private let scheme: String
    private let host: String
    private let port: Int?
    private let path: String
    /// The query's `name=value` pairs, each percent-decoded as a whole: redaction may have put a
    /// placeholder over the `=` itself (a pair too deeply nested to read is hidden whole).
    private let query: [String]

    /// Nil for a text that is not an absolute URL with a host.
    init?(_ text: String) {
        guard let separator = text.range(of: "://") else { return nil }
        scheme = text[..<separator.lowerBound].lowercased()
        let rest = text[separator.upperBound...].split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        guard let (host, port) = Self.hostAndPort(authority, scheme: scheme) else { return nil }
        self.host = host
        self.port = port
        let target = rest[authorityEnd...]
        let queryStart = target.firstIndex(of: "?")
        let path = Self.decoded(target[..<(queryStart ?? target.endIndex)])
        self.path = path.isEmpty ? "/" : path
        query = queryStart.map { Self.pairs(target[target.index(after: $0)...]) } ?? []
    }

    /// Whether `sent` (a request's URL) is this recorded URL.
    func matches(_ sent: ArchiveURLPattern) -> Bool {
        hasSameResource(as: sent) && Self.queryMatches(recorded: query, sent: sent.query)
    }

    /// Whether `other` has this scheme, host, port and path, whatever its query. (The host too
    /// may hold a placeholder: the logs' rules hide a secret parameter wherever it is written,
    /// `https://api.test;token=<redacted>` included.)
    func hasSameResource(as other: ArchiveURLPattern) -> Bool {
        other.scheme == scheme && other.port == port && Self.matches(recorded: host, sent: other.host)
            && Self.matches(recorded: path, sent: other.path)
    }

    /// Every recorded pair takes a sent pair of its own. Exact pairs first: equal texts are
    /// interchangeable, so taking any equal one never costs a pattern its match. Then the pairs
    /// with a redacted part, by augmenting paths: a greedy choice can take the one sent pair
    /// another pattern needed (`<redacted>;x` may take the only pair `<redacted>;<redacted>;<redacted>`
    /// fits). Past `exactPatternLimit` such pairs (a recursion's depth), the most specific pattern
    /// chooses first instead.
    private static func queryMatches(recorded: [String], sent: [String]) -> Bool {
        guard recorded.count == sent.count else { return false }
        var exact: [[UInt8]: Int] = [:], patterns: [[[UInt8]]] = []
        for pair in recorded {
            let pieces = pieces(of: pair)
            if pieces.count == 1 { exact[pieces[0], default: 0] += 1 } else { patterns.append(pieces) }
        }
        var unmatched: [[UInt8]] = []
        for pair in sent {
            let bytes = Array(pair.utf8)
            if let count = exact[bytes], count > 0 { exact[bytes] = count - 1 } else { unmatched.append(bytes) }
        }
        // Every exact pair found its own, so as many sent pairs are left as there are patterns.
        guard unmatched.count == patterns.count else { return false }
        guard patterns.count <= exactPatternLimit else { return greedyMatches(patterns: patterns, sent: unmatched) }
        var candidates: [[Int]] = []
        for pattern in patterns {
            let fitting = unmatched.indices.filter { matches(pieces: pattern, sent: unmatched[$0]) }
            guard !fitting.isEmpty else { return false }
            candidates.append(fitting)
        }
        var owner = [Int?](repeating: nil, count: unmatched.count)
        for pattern in patterns.indices {
            var visited = [Bool](repeating: false, count: unmatched.count)
            guard augment(pattern, candidates: candidates, owner: &owner, visited: &visited) else { return false }
        }
        return true
    }

    /// Patterns matched exactly (by augmenting paths) up to this many per query.
    static let exactPatternLimit = 256

    /// Whether `pattern` gets a sent pair: a free one, or one whose owner can move to another.
    private static func augment(_ pattern: Int, candidates: [[Int]], owner: inout [Int?], visited: inout [Bool]) -> Bool {
        for sent in candidates[pattern] where !visited[sent] {
            visited[sent] = true
            if let other = owner[sent], !augment(other, candidates: candidates, owner: &owner, visited: &visited) { continue }
            owner[sent] = pattern
            return true
        }
        return false
    }

    /// The most specific pattern (the most bytes outside placeholders) chooses first.
    private static func greedyMatches(patterns: [[[UInt8]]], sent: [[UInt8]]) -> Bool {
        var unmatched = sent
        let ordered = patterns.map { (pieces: $0, specificity: $0.reduce(0) { $0 + $1.count }) }.sorted { $0.specificity > $1.specificity }
        for (pattern, _) in ordered {
            guard let index = unmatched.firstIndex(where: { matches(pieces: pattern, sent: $0) }) else { return false }
            unmatched.remove(at: index)
        }
        return true
    }

    private static let placeholder = Array(LogRedaction.placeholder.utf8)

    /// Whether `sent` is `recorded` with anything in the places of its placeholders. Compared as
    /// UTF-8 bytes: as characters, a combining mark after a placeholder's place would join the
    /// character before it and match nothing.
    static func matches(recorded: String, sent: String) -> Bool {
        matches(pieces: pieces(of: recorded), sent: Array(sent.utf8))
    }

    /// The same, for a recorded text already cut at its placeholders.
    private static func matches(pieces: [[UInt8]], sent: [UInt8]) -> Bool {
        guard let first = pieces.first, let last = pieces.last, pieces.count > 1 else { return pieces.first == sent }
        guard sent.starts(with: first) else { return false }
        var position = first.count
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let start = firstIndex(of: piece, in: sent, from: position) else { return false }
            position = start + piece.count
        }
        return sent.count - position >= last.count && sent.suffix(last.count).elementsEqual(last)
    }

    /// The UTF-8 bytes between placeholders (one piece when there is none).
    private static func pieces(of text: String) -> [[UInt8]] {
        let bytes = Array(text.utf8)
        var pieces: [[UInt8]] = [], start = 0, index = 0
        while let found = firstIndex(of: placeholder, in: bytes, from: index) {
            pieces.append(Array(bytes[start..<found]))
            start = found + placeholder.count
            index = start
        }
        pieces.append(Array(bytes[start...]))
        return pieces
    }

    private static func firstIndex(of piece: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !piece.isEmpty, bytes.count - start >= piece.count else { return nil }
        return (start...(bytes.count - piece.count)).first { bytes[$0..<($0 + piece.count)].elementsEqual(piece) }
    }

    private static func hostAndPort(_ authority: Substring, scheme: String) -> (String, Int?)? {
        var host = authority, portText: Substring?
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { return nil }
        var port = portText.flatMap { Int($0) }
        if portText != nil, port == nil, portText?.isEmpty == false { return nil }
        if port == nil { port = ["http": 80, "https": 443][scheme] }
        return (host.lowercased(), port)
    }

    private static func pairs(_ query: Substring) -> [String] {
        query.split(separator: "&").map(decoded)
    }

    private static func decoded(_ text: Substring) -> String {
        String(text).removingPercentEncoding ?? String(text)
    }
}
