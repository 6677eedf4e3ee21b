import Foundation
@testable import HTTPTransport

/// The library calls this target makes (a rename in the library is fixed here only).
enum Library {
    /// The library's cookie (not the Foundation class of that name).
    typealias Cookie = HTTPCookie

    /// The cookies a Netscape cookie file's text holds (what `CookieStorage(file:)` loads).
    static func cookies(inFileText text: String) -> [Cookie] { CookieFile.cookies(in: text) }

    /// The file text `CookieStorage.save()` writes for these cookies.
    static func fileText(for cookies: [Cookie]) -> String { CookieFile.text(for: cookies) }

    /// The latest expiry the store keeps (later ones are clamped to it).
    static let latestExpiry = CookieParser.latestExpiry

    static func makeStore(now: Date) -> CookieStorage { CookieStorage(file: nil, now: { now }) }

    static func set(_ cookie: Cookie, in store: CookieStorage) { store.setCookie(cookie) }

    /// What `save()` writes: the live cookies that are not session cookies, oldest first.
    static func savedCookies(of store: CookieStorage) -> [Cookie] { store.allCookies.filter { !$0.isSessionCookie } }
}
