import Foundation

/// Hides the secrets of URLs inside arbitrary text (a URL alone, a header value, an error
/// message): the user info after `scheme://`, the values of secret `name=value` pairs after
/// each `?` or `#`, and the values of secret path parameters (`/app;jsessionid=…`). Works on UTF-8 bytes and replaces only ASCII-delimited runs, so any text
/// (non-ASCII, control characters, half a URL) passes through unchanged but for the secrets.
struct URLTextRedactor {
    /// Normalised names (see `LogRedaction.normalizedName(_:)`) whose values are hidden.
    let secretNames: Set<String>

    private static let placeholder = Array(LogRedaction.placeholder.utf8)
    /// Nested URLs (a `redirect_uri` value carrying its own query) are followed this deep.
    private static let maximumDepth = 3
    /// What a value deeper than that must not hold to be shown: user info, a query, a
    /// fragment, a pair, or percent-encoding that could hide any of them.
    private static let nestingBytes = Set("@?#=%".utf8)

    func redact(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(where: { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            || $0 == UInt8(ascii: ";") })
        else { return text }
        let output = Self.untilUnchanged(bytes) { redact($0[...], depth: 0) }
        return output.elementsEqual(bytes) ? text : String(decoding: output, as: UTF8.self)
    }

    /// `name=value` pairs separated by `&` or `;` (a query, a form body) with secret values hidden.
    func redactPairs(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let output = Self.untilUnchanged(bytes) { redactPairs($0[...], depth: 0) }
        return output.elementsEqual(bytes) ? text : String(decoding: output, as: UTF8.self)
    }

    /// `pass` applied again until it changes nothing, so redacting redacted text changes
    /// nothing either: a placeholder can end a nested reading earlier than the text it replaced
    /// did (at the depth limit, inside percent-encoding), which a second pass would act on.
    /// It ends: a pass only copies bytes or puts placeholders in the place of runs that are not
    /// already one placeholder, so each pass that changes something leaves fewer bytes outside
    /// placeholders, or as many in a shorter text.
    private static func untilUnchanged(_ bytes: [UInt8], _ pass: ([UInt8]) -> [UInt8]) -> [UInt8] {
        var current = bytes
        while true {
            let next = pass(current)
            if next == current { return current }
            current = next
        }
    }

    // MARK: - Scanning

    private func redact(_ bytes: ArraySlice<UInt8>, depth: Int) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: ":"), bytes[index...].starts(with: Self.schemeSeparator) {
                output += Self.schemeSeparator
                index = appendAuthority(bytes, from: index + 3, to: &output)
            } else if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                output.append(byte)
                let end = Self.pairsEnd(in: bytes, from: index + 1, endsAtHash: byte == UInt8(ascii: "?"))
                output += redactPairs(bytes[(index + 1)..<end], depth: depth)
                index = end
            } else if byte == UInt8(ascii: ";"), let valueStart = secretPathParameterValue(in: bytes, after: index) {
                output += bytes[index..<valueStart]
                output += Self.placeholder
                index = Self.pathParameterEnd(in: bytes, from: valueStart)
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }

    private static let schemeSeparator = Array("://".utf8)

    /// Where the value of the path parameter after the `;` at `semicolon` starts, when its name
    /// is secret (`;jsessionid=…`, the Java servlet session id in a URL's path); nil otherwise.
    private func secretPathParameterValue(in bytes: ArraySlice<UInt8>, after semicolon: Int) -> Int? {
        var index = semicolon + 1
        while index < bytes.endIndex, bytes[index] != UInt8(ascii: "=") {
            if Self.endsPathParameter(bytes[index]) { return nil }
            index += 1
        }
        guard index < bytes.endIndex, isSecret(name: bytes[(semicolon + 1)..<index]) else { return nil }
        return index + 1
    }

    /// Where a path parameter's value ends: at the next `/`, `;`, query, fragment, the `://` of a
    /// URL written straight after it (whose user info must still be read as such) or the end of
    /// the URL. A placeholder already there is the value, so redacting twice changes nothing.
    private static func pathParameterEnd(in bytes: ArraySlice<UInt8>, from start: Int) -> Int {
        var index = start
        while index < bytes.endIndex {
            if bytes[index...].starts(with: placeholder) {
                index += placeholder.count
                continue
            }
            if endsPathParameter(bytes[index]) || bytes[index...].starts(with: schemeSeparator) { return index }
            index += 1
        }
        return bytes.endIndex
    }

    private static func endsPathParameter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
            || byte == UInt8(ascii: ",") || endsPairs(byte)
    }

    /// Where the pairs after a `?` or `#` end: at white space, a double quote or backtick, an
    /// angle bracket (as in `Link: <…>`) or, for a query, a `#`. Not at `'`, which a URL may
    /// hold as it is (RFC 3986 sub-delims: `?name=O'Brien&token=…`): ending there showed the
    /// pairs after it. A placeholder already there is part of a value, so redacting twice
    /// changes nothing.
    private static func pairsEnd(in bytes: ArraySlice<UInt8>, from start: Int, endsAtHash: Bool) -> Int {
        var index = start
        while index < bytes.endIndex {
            if bytes[index...].starts(with: placeholder) {
                index += placeholder.count
                continue
            }
            let byte = bytes[index]
            if endsURLPart(byte) || (endsAtHash && byte == UInt8(ascii: "#")) { return index }
            index += 1
        }
        return bytes.endIndex
    }

    /// Copies the authority starting at `start`, its user info hidden: `user:<redacted>@` for
    /// a password, `<redacted>@` for a user name alone or with an empty password (a token used
    /// as the user name, as in `https://KEY:@api.example`); returns where the authority ends.
    /// A user name holding `@`, `&`, `;` or `=` is hidden too: the user info runs to the last
    /// `@`, so in text such a "name" is pairs read into it (`…://h@x&token=T&a:b@y`).
    private func appendAuthority(_ bytes: ArraySlice<UInt8>, from start: Int, to output: inout [UInt8]) -> Int {
        guard let at = Self.userInfoEnd(in: bytes, from: start) else { return start }
        if let colon = bytes[start..<at].firstIndex(of: UInt8(ascii: ":")), colon + 1 < at,
           !bytes[start..<colon].contains(where: Self.marksPairs) {
            output += bytes[start...colon]
        }
        output += Self.placeholder
        output.append(UInt8(ascii: "@"))
        return at + 1
    }

    /// The `@` that ends the user info of the authority starting at `start` (after `://`), if
    /// it has one. A placeholder already there is part of the user info (its `<` would end the
    /// URL), so redacting twice changes nothing.
    private static func userInfoEnd(in bytes: ArraySlice<UInt8>, from start: Int) -> Int? {
        var end = start
        while end < bytes.endIndex {
            if bytes[end...].starts(with: placeholder) {
                end += placeholder.count
                continue
            }
            let byte = bytes[end]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if endsURLPart(byte) { break }
            end += 1
        }
        return bytes[start..<end].lastIndex(of: UInt8(ascii: "@"))
    }

    /// The first of `separators` in `bytes`, passing over the user info of a URL written there
    /// (`next=https://u:pa;ss@host/`: a `;`, `&` or `=` in a password does not split the pair).
    private static func firstSeparator(in bytes: ArraySlice<UInt8>, from start: Int, _ separators: (UInt8) -> Bool) -> Int? {
        var index = start
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: ":"), bytes[index...].starts(with: schemeSeparator),
               let at = userInfoEnd(in: bytes, from: index + 3) {
                index = at + 1
                continue
            }
            if separators(bytes[index]) { return index }
            index += 1
        }
        return nil
    }

    /// What shows a "user name" to be pairs read into it: a raw `@`, which no user name holds,
    /// and a pair's `&`, `;` or `=`, which a user name may hold (RFC 3986 sub-delims) but seldom
    /// does, and is then hidden with its password.
    private static func marksPairs(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "@") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "=")
    }

    /// What ends a URL inside text: white space, quotes, angle brackets and control characters.
    private static func endsPairs(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00...0x20, 0x7F, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"),
             UInt8(ascii: "`"):
            return true
        default:
            return false
        }
    }

    /// What ends a query's pairs or a URL's user info once the URL has begun: as `endsPairs`,
    /// but not `'`, which a URL may hold as it is (RFC 3986 sub-delims).
    private static func endsURLPart(_ byte: UInt8) -> Bool { endsPairs(byte) && byte != UInt8(ascii: "'") }

    private func redactPairs(_ bytes: ArraySlice<UInt8>, depth: Int) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var pairStart = bytes.startIndex
        while pairStart <= bytes.endIndex {
            let pairEnd = Self.firstSeparator(in: bytes, from: pairStart) { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: ";") }
                ?? bytes.endIndex
            output += redactPair(bytes[pairStart..<pairEnd], depth: depth)
            guard pairEnd < bytes.endIndex else { break }
            output.append(bytes[pairEnd])
            pairStart = pairEnd + 1
        }
        return output
    }

    /// One `name=value` pair. Text in a query need not be a well-formed pair, so a pair without
    /// `=`, and the name of one, may hold a URL of their own (`?see&https://user:pass@host`).
    private func redactPair(_ pair: ArraySlice<UInt8>, depth: Int) -> [UInt8] {
        guard let equals = Self.firstSeparator(in: pair, from: pair.startIndex, { $0 == UInt8(ascii: "=") }) else {
            return redactNested(pair, depth: depth + 1)
        }
        let name = pair[..<equals], value = pair[(equals + 1)...]
        // A `?` or `#` inside the name starts a query of its own, as in a fragment route
        // (`#/callback?access_token=…`), after what may be a URL's start: the pair is text again.
        // Each level consumes a `?` or `#`; past the depth limit the whole pair is hidden.
        if name.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            return depth < Self.maximumDepth ? redact(pair, depth: depth + 1) : Self.placeholder
        }
        let shownName = redactNested(name, depth: depth + 1) + [UInt8(ascii: "=")]
        guard isSecret(name: name) else { return shownName + redactNested(value, depth: depth + 1) }
        return shownName + Self.placeholder + Self.closingQuote(of: value)
    }

    /// What ends a URL quoted in text, when the quote closed after its last value (`'…?code=C1'.`):
    /// from the value's last `'` on, when only punctuation follows it and something precedes it.
    private static func closingQuote(of value: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let quote = value.lastIndex(of: UInt8(ascii: "'")), quote > value.startIndex,
              value[quote...].allSatisfy({ $0 < 0x80 && !isLetterOrDigit($0) && $0 != UInt8(ascii: "%") })
        else { return [] }
        return value[quote...]
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// A value that is itself a URL (plain, or percent-encoded as `redirect_uri` values are):
    /// its secrets hidden, or the whole value when they are percent-encoded.
    private func redactNested(_ value: ArraySlice<UInt8>, depth: Int) -> [UInt8] {
        guard !value.isEmpty else { return [] }
        guard depth <= Self.maximumDepth else {
            // Too deep to look into: hidden whole, unless it plainly holds no URL and no pair.
            return value.contains(where: { Self.nestingBytes.contains($0) }) ? Self.placeholder : Array(value)
        }
        let plain = redact(value, depth: depth)
        guard value.contains(UInt8(ascii: "%")) else { return plain }
        let text = String(decoding: value, as: UTF8.self)
        guard let decoded = text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding, decoded != text else {
            return plain
        }
        // The decoded reading counts even where the plain one hid something: the plain one hides
        // less, so skipping the decoded one there would hide the whole value only the second
        // time. It runs at the same depth as the plain reading (decoding shortens the text, so
        // this ends): one level deeper, the same would happen at the depth limit.
        let decodedBytes = Array(decoded.utf8)
        return redact(decodedBytes[...], depth: depth).elementsEqual(decodedBytes) ? plain : Self.placeholder
    }

    /// Whether a (possibly percent-encoded) pair name is secret; `a[b]` names are checked by
    /// their last bracketed component too.
    private func isSecret(name raw: ArraySlice<UInt8>) -> Bool {
        guard !secretNames.isEmpty, !raw.isEmpty else { return false }
        let text = String(decoding: raw, as: UTF8.self)
        let name = LogRedaction.normalizedName(text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? text)
        if secretNames.contains(name) { return true }
        guard name.last == "]", let leaf = name.split(whereSeparator: { $0 == "[" || $0 == "]" }).last else { return false }
        return secretNames.contains(String(leaf))
    }
}
