import Foundation

/// The log rules as recordings apply them. One difference: a hidden `Cookie` or `Set-Cookie`
/// header keeps its cookie names and `Set-Cookie` attributes and hides only the values, so an
/// archive still shows which cookies went where, and a replay stores and sends them by name.
extension LogRedaction {
    /// Every header, its value as `headerValue(_:name:)` shows it (cookies as above).
    func archivedHeaders(_ headers: HTTPHeaders) -> [ArchiveNameValue] {
        headers.fields.map { ArchiveNameValue(name: $0.name, value: archivedHeaderValue($0.value, name: $0.name)) }
    }

    func archivedHeaderValue(_ value: String, name: String) -> String {
        guard hidesHeader(name) else { return headerValue(value, name: name) }
        switch Self.normalizedName(name) {
        case "cookie":
            return Self.cookiePairs(value).map { "\($0.name)=\(Self.placeholder)" }.joined(separator: "; ")
        case "setcookie":
            let parts = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            let cookieName = Self.cookiePairs(String(parts[0])).first?.name ?? ""
            return "\(cookieName)=\(Self.placeholder)" + (parts.count > 1 ? ";" + redactedText(String(parts[1])) : "")
        default:
            return Self.placeholder
        }
    }

    /// The cookies of the request's `Cookie` headers.
    func archivedRequestCookies(_ headers: HTTPHeaders) -> [ArchiveCookie] {
        let hidden = hidesHeader("Cookie")
        return headers.values("Cookie").flatMap(Self.cookiePairs).map {
            ArchiveCookie(name: $0.name, value: hidden ? Self.placeholder : $0.value)
        }
    }

    /// The cookies of the response's `Set-Cookie` headers, with the attributes that apply to `url`.
    func archivedResponseCookies(_ headers: HTTPHeaders, url: URL) -> [ArchiveCookie] {
        let hidden = hidesHeader("Set-Cookie")
        return headers.values("Set-Cookie").compactMap { header in
            guard let cookie = HTTPCookie.parse(setCookieHeader: header, for: url) else {
                return Self.cookiePairs(header.split(separator: ";").first.map(String.init) ?? "").first.map {
                    ArchiveCookie(name: $0.name, value: hidden ? Self.placeholder : $0.value)
                }
            }
            return ArchiveCookie(
                name: cookie.name, value: hidden ? Self.placeholder : cookie.value, path: cookie.path,
                domain: cookie.domain, expires: cookie.expiresDate.map(ArchiveEntry.timestamp),
                httpOnly: cookie.isHTTPOnly, secure: cookie.isSecure)
        }
    }

    /// `name=value` pairs separated by `;`, trimmed (a `Cookie` header, or a `Set-Cookie`'s first pair).
    private static func cookiePairs(_ header: String) -> [(name: String, value: String)] {
        header.split(separator: ";").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { return nil }
            return (name, parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
    }
}
