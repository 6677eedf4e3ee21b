import Foundation

/// The file name a `Content-Disposition` header suggests (RFC 6266), made safe to use as a file
/// name in a directory of the caller's choosing: a server is not trusted to send a harmless one.
enum ContentDisposition {
    /// The longest name kept, in UTF-8 bytes (Linux's `NAME_MAX`).
    static let maximumNameLength = 255

    /// The sanitized file name of a `Content-Disposition` value: `filename*` (RFC 5987, UTF-8 or
    /// ISO-8859-1) when it decodes, else `filename`; nil when there is none or nothing usable.
    static func suggestedFilename(from header: String) -> String? {
        var plain: String?
        var extended: String?
        for (name, value) in parameters(of: header) {
            switch name.lowercased() {
            case "filename*": extended = extended ?? decodeExtendedValue(value)
            case "filename": plain = plain ?? value
            default: continue
            }
        }
        return (extended ?? plain).flatMap(sanitizedFilename)
    }

    /// `name` as a plain file name: every control, format (bidi overrides, zero-width) and
    /// line/paragraph-separator character removed; only the last `/`- or `\`-separated
    /// component kept; no leading `.`, `-` or white space, no trailing white space; cut to
    /// `maximumNameLength` bytes (keeping a short extension). Nil when nothing is left.
    static func sanitizedFilename(_ name: String) -> String? {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars where !isRemoved(scalar) { scalars.append(scalar) }
        // Separators, dots, dashes and white space are found as scalars, not Characters: a
        // combining mark after `/` or `.` makes one Character equal to neither, while the file
        // system still sees the `/` or the leading `.`.
        let component = scalars.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last ?? Substring.UnicodeScalarView()
        let trimmed = component.drop { $0 == "." || $0 == "-" || $0.properties.isWhitespace }
        var result = withoutTrailingWhiteSpace(String(trimmed))
        guard !result.isEmpty else { return nil }
        // Cutting may end the name in white space again.
        if result.utf8.count > maximumNameLength { result = withoutTrailingWhiteSpace(shortened(result)) }
        return result
    }

    private static func withoutTrailingWhiteSpace(_ text: String) -> String {
        var scalars = text.unicodeScalars
        while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }

    private static func isRemoved(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// `name` cut to `maximumNameLength` UTF-8 bytes, keeping an extension of up to 16 bytes.
    /// The cut falls between scalars, not Characters: one Character (a letter with hundreds of
    /// combining marks) can be longer than the whole budget.
    private static func shortened(_ name: String) -> String {
        var stem = Substring(name)
        var suffix = ""
        if let dot = name.unicodeScalars.lastIndex(of: "."), name.utf8.distance(from: dot, to: name.endIndex) <= 16 {
            stem = name[..<dot]
            suffix = String(name[dot...])
        }
        var kept = String.UnicodeScalarView()
        var budget = maximumNameLength - suffix.utf8.count
        for scalar in stem.unicodeScalars {
            budget -= UTF8.width(scalar)
            guard budget >= 0 else { break }
            kept.append(scalar)
        }
        return String(kept) + suffix
    }

    // MARK: - Parsing

    /// The `name=value` parameters after the disposition type, quoted strings unquoted.
    static func parameters(of header: String) -> [(String, String)] {
        var result: [(String, String)] = []
        var rest = Substring(header)
        // The disposition type comes first; parameters follow the first `;`.
        guard let firstSemicolon = rest.firstIndex(of: ";") else { return [] }
        rest = rest[rest.index(after: firstSemicolon)...]
        while !rest.isEmpty {
            let nameEnd = rest.firstIndex { $0 == "=" || $0 == ";" } ?? rest.endIndex
            let name = rest[..<nameEnd].trimmingCharacters(in: .whitespaces)
            guard nameEnd < rest.endIndex, rest[nameEnd] == "=" else {
                rest = nameEnd < rest.endIndex ? rest[rest.index(after: nameEnd)...] : ""
                continue
            }
            rest = rest[rest.index(after: nameEnd)...].drop { $0 == " " || $0 == "\t" }
            let value: String
            if rest.first == "\"" {
                (value, rest) = quotedString(rest.dropFirst())
                rest = rest.drop { $0 != ";" }
            } else {
                let valueEnd = rest.firstIndex(of: ";") ?? rest.endIndex
                value = rest[..<valueEnd].trimmingCharacters(in: .whitespaces)
                rest = rest[valueEnd...]
            }
            rest = rest.dropFirst()  // the `;`
            if !name.isEmpty { result.append((name, value)) }
        }
        return result
    }

    /// The content of a quoted string (after its opening quote) and what follows its closing
    /// quote; `\x` stands for `x`. An unterminated string runs to the end.
    private static func quotedString(_ text: Substring) -> (String, Substring) {
        var value = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            index = text.index(after: index)
            if character == "\"" { return (value, text[index...]) }
            if character == "\\", index < text.endIndex {
                value.append(text[index])
                index = text.index(after: index)
            } else {
                value.append(character)
            }
        }
        return (value, "")
    }

    /// RFC 5987 `charset'language'percent-encoded` in UTF-8 or ISO-8859-1; nil otherwise.
    static func decodeExtendedValue(_ value: String) -> String? {
        let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3, let bytes = percentDecoded(pieces[2]) else { return nil }
        switch pieces[0].lowercased() {
        case "utf-8": return String(validating: bytes, as: UTF8.self)
        case "iso-8859-1": return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default: return nil
        }
    }

    private static func percentDecoded(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
