import Foundation

/// The one rule for writing a `Cookie` request header (RFC 6265 §4.2.1, §5.4 step 4):
/// `name=value` pairs joined by `"; "`, after the pairs the header already holds. Used by
/// `CookieStorage.cookieHeader(for:)`, `AddCookieInterceptor` and the `with(cookieName:value:)`
/// builders, so every `Cookie` header is joined the same way.
///
/// ```swift
/// CookieHeader.appending(pairs: [("b", "2")], to: "a=1")   // "a=1; b=2"
/// CookieHeader.appending(pairs: [("a", "1")], to: nil)     // "a=1"
/// CookieHeader.appending(pairs: [], to: nil)               // nil
/// ```
///
/// It joins; it does not check. Pairs must already be sendable (no `;`, no control characters,
/// no `=` in a name: see `CookieParser.isSendable(name:value:)`).
enum CookieHeader {
    /// The `Cookie` header value with `pairs` after `existing` (a header value, possibly
    /// nil or empty; a trailing `;` or white space of it is dropped); nil when both are empty.
    static func appending(pairs: [(name: String, value: String)], to existing: String?) -> String? {
        var header = existing.map { String($0.reversed().drop { $0 == ";" || $0 == " " || $0 == "\t" }.reversed()) } ?? ""
        for (name, value) in pairs {
            if !header.isEmpty { header += "; " }
            header += name + "=" + value
        }
        return header.isEmpty ? nil : header
    }

    /// The `Cookie` header value sending `cookies` in order after `existing`.
    static func appending(_ cookies: [HTTPCookie], to existing: String?) -> String? {
        appending(pairs: cookies.map { ($0.name, $0.value) }, to: existing)
    }
}
