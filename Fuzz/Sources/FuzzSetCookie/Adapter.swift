import Foundation
@testable import HTTPTransport

/// The library calls this target makes (a rename in the library is fixed here only).
enum Library {
    /// The library's cookie (not the Foundation class of that name).
    typealias Cookie = HTTPCookie

    static func parse(_ header: String, from url: URL, now: Date) -> Cookie? {
        HTTPCookie.parse(setCookieHeader: header, for: url, now: now)
    }

    static func makeStore(now: Date) -> CookieStorage {
        CookieStorage(file: nil, now: { now })
    }

    static func store(_ headers: [String], from url: URL, in store: CookieStorage) {
        store.store(setCookieHeaders: headers, for: url)
    }

    static func stored(in store: CookieStorage) -> [Cookie] { store.allCookies }

    static func cookiesToSend(to url: URL, from store: CookieStorage) -> [Cookie] { store.cookies(for: url) }

    static func cookieHeader(for url: URL, from store: CookieStorage) -> String? { store.cookieHeader(for: url) }

    static func isPublicSuffix(_ domain: String) -> Bool { PublicSuffixList.shared.isPublicSuffix(domain) }
}
