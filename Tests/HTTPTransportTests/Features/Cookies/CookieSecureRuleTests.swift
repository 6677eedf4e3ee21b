import Foundation
import XCTest
@testable import HTTPTransport

/// RFC 6265bis rules that protect `Secure` cookies: a non-secure origin leaves them alone, and
/// the `__Secure-` and `__Host-` name prefixes (matched case-insensitively) are enforced.
final class CookieSecureRuleTests: XCTestCase {
    private let clock = CookieTestClock()
    private lazy var storage = CookieStorage(now: clock.now)

    private func url(_ string: String) -> URL { URL(string: string)! }

    private func sent(to string: String) -> [String] {
        storage.cookies(for: url(string)).map { "\($0.name)=\($0.value)" }
    }

    // MARK: - Leave secure cookies alone

    func testPlainHTTPCannotOverwriteASecureCookie() {
        storage.store(setCookieHeaders: ["sid=secret; Secure"], for: url("https://example.org/"))
        storage.store(setCookieHeaders: ["sid=planted"], for: url("http://example.org/"))
        XCTAssertEqual(sent(to: "https://example.org/"), ["sid=secret"])
        XCTAssertEqual(storage.allCookies.count, 1)
    }

    func testPlainHTTPCannotDeleteASecureCookie() {
        storage.store(setCookieHeaders: ["sid=secret; Secure"], for: url("https://example.org/"))
        storage.store(setCookieHeaders: ["sid=; Max-Age=0"], for: url("http://example.org/"))
        XCTAssertEqual(sent(to: "https://example.org/"), ["sid=secret"])
    }

    func testPlainHTTPCannotShadowASecureCookieWithALongerPath() {
        storage.store(setCookieHeaders: ["sid=secret; Secure; Path=/"], for: url("https://example.org/"))
        storage.store(setCookieHeaders: ["sid=planted; Path=/account"], for: url("http://example.org/"))
        XCTAssertEqual(sent(to: "https://example.org/account"), ["sid=secret"])
    }

    func testPlainHTTPCannotShadowASecureCookieFromAParentOrChildDomain() {
        storage.store(setCookieHeaders: ["sid=secret; Secure"], for: url("https://www.example.org/"))
        storage.store(setCookieHeaders: ["sid=planted; Domain=example.org"], for: url("http://api.example.org/"))
        storage.store(setCookieHeaders: ["sid=planted"], for: url("http://a.www.example.org/"))
        storage.store(setCookieHeaders: ["ids=1; Secure; Domain=example.org"], for: url("https://example.org/"))
        storage.store(setCookieHeaders: ["ids=planted"], for: url("http://www.example.org/"))
        XCTAssertEqual(Set(sent(to: "https://www.example.org/")), ["sid=secret", "ids=1"])
        XCTAssertEqual(storage.allCookies.count, 2)
    }

    func testPlainHTTPMaySetTheSameNameOutsideTheSecureCookiesScope() {
        storage.store(setCookieHeaders: ["sid=secret; Secure; Path=/account"], for: url("https://example.org/"))
        storage.store(setCookieHeaders: ["sid=other; Path=/"], for: url("http://example.org/"))
        storage.store(setCookieHeaders: ["sid=elsewhere"], for: url("http://other.example/"))
        XCTAssertEqual(sent(to: "https://example.org/account"), ["sid=secret", "sid=other"])
        XCTAssertEqual(sent(to: "http://other.example/"), ["sid=elsewhere"])
    }

    func testAnExpiredSecureCookieNoLongerBlocksItsName() {
        storage.store(setCookieHeaders: ["sid=secret; Secure; Max-Age=60"], for: url("https://example.org/"))
        clock.advance(by: 61)
        storage.store(setCookieHeaders: ["sid=plain"], for: url("http://example.org/"))
        XCTAssertEqual(sent(to: "http://example.org/"), ["sid=plain"])
    }

    func testASecureOriginMayReplaceASecureCookieWithANonSecureOne() {
        storage.store(setCookieHeaders: ["sid=secret; Secure"], for: url("https://example.org/"))
        storage.store(setCookieHeaders: ["sid=new"], for: url("https://example.org/"))
        XCTAssertEqual(sent(to: "http://example.org/"), ["sid=new"])
    }

    func testNonSecureCookiesAreStillReplacedOverPlainHTTP() {
        storage.store(setCookieHeaders: ["a=1"], for: url("http://example.org/"))
        storage.store(setCookieHeaders: ["a=2"], for: url("http://example.org/"))
        XCTAssertEqual(sent(to: "http://example.org/"), ["a=2"])
    }

    // MARK: - Prefixes

    func testSecurePrefixNeedsTheSecureAttribute() {
        storage.store(setCookieHeaders: ["__Secure-a=1", "__Secure-b=1; Secure"], for: url("https://example.org/"))
        XCTAssertEqual(sent(to: "https://example.org/"), ["__Secure-b=1"])
    }

    func testSecurePrefixNeedsASecureOrigin() {
        storage.store(setCookieHeaders: ["__Secure-a=1; Secure", "__Secure-b=1"], for: url("http://example.org/"))
        XCTAssertEqual(storage.allCookies, [])
    }

    func testHostPrefixNeedsSecureNoDomainAndPathSlash() {
        storage.store(setCookieHeaders: [
            "__Host-ok=1; Secure; Path=/",
            "__Host-insecure=1; Path=/",
            "__Host-domain=1; Secure; Path=/; Domain=example.org",
            "__Host-nopath=1; Secure",
            "__Host-subpath=1; Secure; Path=/app",
        ], for: url("https://example.org/"))
        XCTAssertEqual(sent(to: "https://example.org/app"), ["__Host-ok=1"])
    }

    func testHostPrefixNeedsASecureOrigin() {
        storage.store(setCookieHeaders: ["__Host-a=1; Secure; Path=/", "__Host-b=1; Path=/"], for: url("http://example.org/"))
        XCTAssertEqual(storage.allCookies, [])
    }

    func testPrefixesAreMatchedCaseInsensitively() {
        storage.store(setCookieHeaders: ["__SECURE-a=1", "__host-b=1; Secure; Domain=example.org; Path=/",
                                         "__HoSt-c=1; Secure; Path=/"], for: url("https://example.org/"))
        XCTAssertEqual(sent(to: "https://example.org/"), ["__HoSt-c=1"])
    }

    func testNamesThatOnlyResembleAPrefixAreOrdinary() {
        storage.store(setCookieHeaders: ["_Secure-a=1", "__Hostx=1", "x__Host-y=1"], for: url("http://example.org/"))
        XCTAssertEqual(Set(sent(to: "http://example.org/")), ["_Secure-a=1", "__Hostx=1", "x__Host-y=1"])
    }
}
