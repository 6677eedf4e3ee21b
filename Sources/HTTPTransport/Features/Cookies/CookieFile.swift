import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The Netscape cookie file, the format curl reads with `-b file` and writes with `-c file`:
/// a `# Netscape HTTP Cookie File` header, then one cookie a line, seven tab-separated fields:
/// domain (a leading `.` for a domain cookie, the prefix `#HttpOnly_` for an HttpOnly one),
/// include-subdomains `TRUE`/`FALSE`, path, secure `TRUE`/`FALSE`, expiry in Unix seconds
/// (`0` for a session cookie), name, value. `SameSite` has no field and is not kept.
enum CookieFile {
    /// The first line curl writes and looks for.
    static let header = "# Netscape HTTP Cookie File"
    private static let httpOnlyPrefix = "#HttpOnly_"

    // MARK: - Text

    /// The file's text for `cookies`, in their order. Cookies with a tab, CR or LF in a field
    /// (which the format cannot hold) are left out.
    static func text(for cookies: [HTTPCookie]) -> String {
        var lines = [header, "# Written by HTTPTransport. Edit at your own risk.", ""]
        lines.append(contentsOf: cookies.compactMap(line(for:)))
        return lines.joined(separator: "\n") + "\n"
    }

    /// One cookie's line, or nil when a field holds a tab, CR or LF.
    static func line(for cookie: HTTPCookie) -> String? {
        let expiry = cookie.expiresDate.map { max(0, Int64($0.timeIntervalSince1970.rounded(.down))) } ?? 0
        let fields = [
            (cookie.isHTTPOnly ? httpOnlyPrefix : "") + (cookie.isHostOnly ? "" : ".") + cookie.domain,
            cookie.isHostOnly ? "FALSE" : "TRUE",
            cookie.path,
            cookie.isSecure ? "TRUE" : "FALSE",
            String(expiry),
            cookie.name,
            cookie.value,
        ]
        let forbidden: Set<UInt8> = [0x09, 0x0A, 0x0D]
        guard !fields.contains(where: { $0.utf8.contains(where: forbidden.contains) }) else { return nil }
        return fields.joined(separator: "\t")
    }

    /// The cookies in a file's text, in file order. Comments, blank lines and lines that are
    /// not a well-formed cookie are skipped. Expiry `0` reads as a session cookie.
    static func cookies(in text: String) -> [HTTPCookie] {
        text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .compactMap { cookie(fromLine: Substring($0)) }
    }

    /// The cookie one line describes, or nil for a comment, a blank or a malformed line (also
    /// one whose name or value could not be sent unchanged in a `Cookie` header).
    static func cookie(fromLine rawLine: Substring) -> HTTPCookie? {
        var line = rawLine
        var isHTTPOnly = false
        // On bytes, as curl reads the file: `#HttpOnly_` followed by a combining mark is still
        // the prefix, though its last Character is not `_`.
        if line.utf8.starts(with: httpOnlyPrefix.utf8) {
            isHTTPOnly = true
            line = Substring(line.utf8.dropFirst(httpOnlyPrefix.utf8.count))
        } else if line.utf8.first == UInt8(ascii: "#") {
            return nil
        }
        var fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        if fields.count == 6 { fields.append("") }  // curl accepts a missing (empty) value
        guard fields.count == 7,
              let includeSubdomains = flag(fields[1]),
              let isSecure = flag(fields[3]),
              let expiry = Int64(fields[4]), expiry >= 0
        else { return nil }
        let path = fields[2], name = fields[5]
        guard let domain = CookieParser.canonicalDomain(fields[0]), path.hasPrefix("/"),
              CookieParser.isSendable(name: name, value: fields[6]),
              !CookieParser.containsControlCharacter(line.utf8)
        else { return nil }
        return HTTPCookie(
            name: name,
            value: fields[6],
            domain: domain,
            path: path,
            expiresDate: expiry == 0 ? nil : min(Date(timeIntervalSince1970: TimeInterval(expiry)), CookieParser.latestExpiry),
            isSecure: isSecure,
            isHTTPOnly: isHTTPOnly,
            sameSite: nil,
            isHostOnly: !includeSubdomains
        )
    }

    private static func flag(_ field: String) -> Bool? {
        switch field.uppercased() {
        case "TRUE": return true
        case "FALSE": return false
        default: return nil
        }
    }
}
