import Foundation
import XCTest
@testable import HTTPTransport

/// Hosts written fully qualified (`bank.com.`): the same host as without the dot for matching,
/// and no way around the public-suffix check through a trailing dot. A `Domain` with a trailing
/// dot names the host's domain only when the host has the dot too (the http-state suite's
/// DOMAIN0014 and browsers refuse `Domain=example.org.` from `example.org`).
final class CookieTrailingDotTests: XCTestCase {
    private let storage = CookieStorage(now: CookieTestClock().now)

    private func url(_ string: String) -> URL { URL(string: string)! }

    private func names(for string: String) -> [String] {
        storage.cookies(for: url(string)).map(\.name)
    }

    func testPublicSuffixDomainWithTrailingDotFromAFullyQualifiedHostIsRefused() {
        storage.store(setCookieHeaders: ["evil=1; Domain=com."], for: url("http://evil.com./"))
        XCTAssertEqual(storage.allCookies, [])
        XCTAssertEqual(names(for: "http://bank.com./"), [])
        XCTAssertEqual(names(for: "http://bank.com/"), [])
    }

    func testPublicSuffixDomainWithoutDotFromAFullyQualifiedHostIsRefused() {
        storage.store(setCookieHeaders: ["evil=1; Domain=com"], for: url("http://evil.com./"))
        storage.store(setCookieHeaders: ["evil=2; Domain=co.uk."], for: url("http://evil.co.uk./"))
        XCTAssertEqual(storage.allCookies, [])
    }

    func testFullyQualifiedDomainFromAHostWithoutTheDotIsRefused() {
        storage.store(setCookieHeaders: ["a=1; Domain=example.com."], for: url("http://www.example.com/"))
        XCTAssertEqual(storage.allCookies, [])
        XCTAssertEqual(names(for: "http://www.example.com/"), [])
    }

    func testFullyQualifiedDomainFromAFullyQualifiedHostCoversTheDomain() {
        storage.store(setCookieHeaders: ["a=1; Domain=example.com."], for: url("http://www.example.com./"))
        XCTAssertEqual(storage.allCookies.first?.domain, "example.com")
        XCTAssertEqual(names(for: "http://other.example.com./"), ["a"])
        XCTAssertEqual(names(for: "http://other.example.com/"), ["a"])
    }

    func testHostWithTrailingDotGetsTheCookiesOfTheSameHost() {
        storage.store(setCookieHeaders: ["plain=1"], for: url("http://bank.com/"))
        storage.store(setCookieHeaders: ["dotted=1"], for: url("http://bank.com./"))
        XCTAssertEqual(names(for: "http://bank.com./"), ["plain", "dotted"])
        XCTAssertEqual(names(for: "http://bank.com/"), ["plain", "dotted"])
        XCTAssertEqual(names(for: "http://www.bank.com./"), [], "host-only cookies stay host-only")
    }

    func testHostEndingInTwoDotsGetsNoCookies() {
        storage.store(setCookieHeaders: ["a=1"], for: url("http://bank.com../"))
        XCTAssertEqual(storage.allCookies, [])
        storage.store(setCookieHeaders: ["b=1"], for: url("http://bank.com/"))
        XCTAssertEqual(names(for: "http://bank.com../"), [])
    }

    func testSetCookieDropsATrailingDotOfTheDomain() {
        storage.setCookie(HTTPCookie(name: "a", value: "1", domain: "Example.COM.", isHostOnly: false))
        XCTAssertEqual(storage.allCookies.first?.domain, "example.com")
        XCTAssertEqual(names(for: "http://www.example.com./"), ["a"])
    }

    func testCookieFileDomainWithTrailingDotIsCanonical() throws {
        let line = ".example.com.\tTRUE\t/\tFALSE\t0\ta\t1"
        let cookie = try XCTUnwrap(CookieFile.cookie(fromLine: Substring(line)))
        XCTAssertEqual(cookie.domain, "example.com")
    }
}
