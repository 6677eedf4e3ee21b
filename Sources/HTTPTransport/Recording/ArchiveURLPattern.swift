import Foundation

/// A recorded URL as a replay matches it: scheme, host and port (the scheme's default when
/// none is written), path, and the query as a bag of `name=value` pairs, so their order does
/// not matter. Where redaction put `<redacted>`, anything matches: a value recorded as
/// `<redacted>` matches any value, one recorded as `https://user:<redacted>@host` (a nested URL)
/// any value of that shape, and a whole pair recorded as `<redacted>` any one pair. User info is
/// ignored: it is never sent as part of the URL.
///
/// Parsed by hand rather than by `URLComponents`, which refuses the `<` and `>` of a redacted value.
struct ArchiveURLPattern: Sendable {
    private struct Pair: Sendable, Equatable {
        var name: String
        var value: String
    }

    private let scheme: String
    private let host: String
    private let port: Int?
    private let path: String
    private let query: [Pair]

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

    /// Whether `other` has this scheme, host, port and path, whatever its query.
    func hasSameResource(as other: ArchiveURLPattern) -> Bool {
        other.scheme == scheme && other.host == host && other.port == port && Self.matches(recorded: path, sent: other.path)
    }

    private static let placeholder = LogRedaction.placeholder

    /// Every recorded pair takes one sent pair: exact ones first, then those with a redacted part,
    /// then whole redacted pairs, so a wildcard never takes the pair an exact one needs.
    private static func queryMatches(recorded: [Pair], sent: [Pair]) -> Bool {
        guard recorded.count == sent.count else { return false }
        var unmatched = sent
        let wholeRedacted = Pair(name: placeholder, value: "")
        let redacted = recorded.filter { "\($0.name)=\($0.value)".contains(placeholder) }
        let ordered = recorded.filter { !"\($0.name)=\($0.value)".contains(placeholder) }
            + redacted.filter { $0 != wholeRedacted } + redacted.filter { $0 == wholeRedacted }
        for pair in ordered {
            let index = unmatched.firstIndex { sent in
                pair == wholeRedacted || (matches(recorded: pair.name, sent: sent.name) && matches(recorded: pair.value, sent: sent.value))
            }
            guard let index else { return false }
            unmatched.remove(at: index)
        }
        return true
    }

    /// Whether `sent` is `recorded` with anything in the places of its placeholders.
    static func matches(recorded: String, sent: String) -> Bool {
        guard recorded.contains(placeholder) else { return recorded == sent }
        let pieces = recorded.components(separatedBy: placeholder)
        guard let first = pieces.first, let last = pieces.last, sent.hasPrefix(first) else { return false }
        var rest = sent.dropFirst(first.count)
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let range = rest.range(of: piece) else { return false }
            rest = rest[range.upperBound...]
        }
        return rest.count >= last.count && rest.hasSuffix(last)
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

    private static func pairs(_ query: Substring) -> [Pair] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return Pair(name: decoded(parts[0]), value: parts.count > 1 ? decoded(parts[1]) : "")
        }
    }

    private static func decoded(_ text: Substring) -> String {
        String(text).removingPercentEncoding ?? String(text)
    }
}
