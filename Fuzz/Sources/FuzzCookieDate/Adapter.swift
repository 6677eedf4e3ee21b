import Foundation
@testable import HTTPTransport

/// The library calls this target makes (a rename in the library is fixed here only).
enum Library {
    /// A cookie `Expires` date (RFC 6265 §5.1.1).
    static func cookieDate(_ text: String) -> Date? { CookieDateParser.parse(text) }
}
