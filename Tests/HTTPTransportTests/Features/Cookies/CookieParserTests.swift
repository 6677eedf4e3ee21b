import Foundation
import XCTest
@testable import HTTPTransport

/// `HTTPCookie.parse(setCookieHeader:for:now:)` and the cookie-date parser.
final class CookieParserTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)
    private let url = URL(string: "https://www.example.org/docs/page.html?x=1")!

    private func parse(_ header: String, for url: URL? = nil) -> HTTPCookie? {
        HTTPCookie.parse(setCookieHeader: header, for: url ?? self.url, now: now)
    }

    func testCookieWithoutDomainIsHostOnlyForTheRequestHost() throws {
        let cookie = try XCTUnwrap(parse("a=1"))
        XCTAssertEqual(cookie.domain, "www.example.org")
        XCTAssertTrue(cookie.isHostOnly)
    }

    func testCookieWithDomainAttributeIsADomainCookieWithoutLeadingDot() throws {
        let cookie = try XCTUnwrap(parse("a=1; Domain=.EXAMPLE.org"))
        XCTAssertEqual(cookie.domain, "example.org")
        XCTAssertFalse(cookie.isHostOnly)
    }

    func testDomainThatDoesNotDomainMatchTheHostIsRefused() {
        XCTAssertNil(parse("a=1; Domain=other.org"))
        XCTAssertNil(parse("a=1; Domain=ww.example.org"))
    }

    func testDomainOtherThanAnIPAddressItselfIsRefusedForAnIPHost() {
        let ipURL = URL(string: "http://192.168.0.1/")!
        XCTAssertNil(parse("a=1; Domain=168.0.1", for: ipURL))
        XCTAssertEqual(parse("a=1; Domain=192.168.0.1", for: ipURL)?.domain, "192.168.0.1")
    }

    func testDefaultPathIsTheRequestDirectory() {
        XCTAssertEqual(parse("a=1")?.path, "/docs")
        XCTAssertEqual(parse("a=1", for: URL(string: "http://h.example/page")!)?.path, "/")
        XCTAssertEqual(parse("a=1", for: URL(string: "http://h.example")!)?.path, "/")
    }

    func testPathNotStartingWithSlashFallsBackToDefaultPath() {
        XCTAssertEqual(parse("a=1; Path=relative")?.path, "/docs")
        XCTAssertEqual(parse("a=1; Path=/x; Path=")?.path, "/docs")
    }

    func testMaxAgeBeatsExpiresWhateverTheOrder() {
        let expected = now.addingTimeInterval(60)
        XCTAssertEqual(parse("a=1; Max-Age=60; Expires=Wed, 01 Jan 2031 00:00:00 GMT")?.expiresDate, expected)
        XCTAssertEqual(parse("a=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT; Max-Age=60")?.expiresDate, expected)
    }

    func testZeroOrNegativeMaxAgeMeansAlreadyExpired() throws {
        for header in ["a=1; Max-Age=0", "a=1; Max-Age=-5"] {
            let expiry = try XCTUnwrap(parse(header)?.expiresDate)
            XCTAssertLessThan(expiry, now, header)
        }
    }

    func testMalformedMaxAgeIsIgnored() {
        for header in ["a=1; Max-Age=1.5", "a=1; Max-Age=+5", "a=1; Max-Age=-", "a=1; Max-Age=", "a=1; Max-Age=5s"] {
            XCTAssertEqual(parse(header)?.isSessionCookie, true, header)
        }
    }

    func testHugeMaxAgeIsClampedInsteadOfOverflowing() {
        XCTAssertEqual(parse("a=1; Max-Age=99999999999999999999999999")?.expiresDate, CookieParser.latestExpiry)
    }

    func testInvalidExpiresIsIgnored() {
        XCTAssertEqual(parse("a=1; Expires=tomorrow")?.isSessionCookie, true)
    }

    func testLastOccurrenceOfAnAttributeWins() {
        let cookie = parse("a=1; Path=/one; Path=/two; SameSite=Lax; SameSite=Strict")
        XCTAssertEqual(cookie?.path, "/two")
        XCTAssertEqual(cookie?.sameSite, .strict)
    }

    func testSameSiteValuesAreParsedCaseInsensitivelyAndUnknownOnesIgnored() {
        XCTAssertEqual(parse("a=1; samesite=none")?.sameSite, HTTPCookie.SameSite.none)
        XCTAssertEqual(parse("a=1; SameSite=LAX")?.sameSite, .lax)
        XCTAssertNil(parse("a=1; SameSite=Bogus")?.sameSite)
        XCTAssertEqual(parse("a=1; SameSite=Lax; SameSite=Bogus")?.sameSite, .lax)
    }

    func testAttributeNamesAreCaseInsensitive() {
        let cookie = parse("a=1; sEcUrE; HTTPONLY; pAtH=/p")
        XCTAssertEqual(cookie?.isSecure, true)
        XCTAssertEqual(cookie?.isHTTPOnly, true)
        XCTAssertEqual(cookie?.path, "/p")
    }

    func testSecureCookieFromAPlainHTTPURLIsRefused() {
        XCTAssertNil(parse("a=1; Secure", for: URL(string: "http://www.example.org/")!))
        XCTAssertNotNil(parse("a=1; Secure", for: URL(string: "https://www.example.org/")!))
    }

    func testHeaderWithoutEqualsSignOrWithEmptyNameIsIgnored() {
        XCTAssertNil(parse("justaname"))
        XCTAssertNil(parse("=value"))
        XCTAssertNil(parse("   =value"))
    }

    func testNameAndValueAreTrimmedAndValueKeepsQuotesAndInnerEquals() {
        let cookie = parse(" \tname \t= \"a=b\"  ; Path=/")
        XCTAssertEqual(cookie?.name, "name")
        XCTAssertEqual(cookie?.value, "\"a=b\"")
    }

    func testHeaderWithControlCharactersIsIgnored() {
        XCTAssertNil(parse("a=b\r\nX-Injected: 1"))
        XCTAssertNil(parse("a=b\u{0}c"))
        XCTAssertNotNil(parse("a=b\tc"))
    }

    func testURLWithoutHostYieldsNoCookie() {
        XCTAssertNil(parse("a=1", for: URL(fileURLWithPath: "/tmp/x")))
    }

    func testGarbageAndUnicodeHeadersNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = Array(" \t;=,\"'\\/:.-_aZ09éß春🍪\u{0}\r\n\u{7F}\u{301}") + ["\r\n"]
        let fixed = ["", ";", "=", ";;;", "==;==", "a=\u{1F36A}; Domain=\u{1F36A}.org", "a=1; Expires=\u{0}",
                     "a=1; Max-Age=-99999999999999999999", "a=1; Domain=.", "a=1; Domain=..", "a=1; Path=\u{301}",
                     String(repeating: "a=b;", count: 5_000), "é=\u{301}; Path=/\u{301}"]
        let random = (0..<500).map { _ in
            String((0..<Int.random(in: 0...60, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator) ?? "a"
            })
        }
        let storage = CookieStorage(now: { Date(timeIntervalSince1970: 1_700_000_000) })
        for header in fixed + random {
            for url in [url, URL(string: "http://[::1]:8080/")!, URL(string: "http://xn--bcher-kva.example/")!] {
                if let cookie = HTTPCookie.parse(setCookieHeader: header, for: url, now: now) {
                    XCTAssertFalse(cookie.name.isEmpty)
                    XCTAssertFalse(cookie.domain.isEmpty)
                }
                storage.store(setCookieHeaders: [header], for: url)
                _ = storage.cookieHeader(for: url)
            }
            _ = CookieDateParser.parse(header)
        }
    }

    // MARK: - Cookie dates

    private func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
    }

    func testTwoDigitYearsFrom70Are19xxAndBelow70Are20xx() {
        XCTAssertEqual(CookieDateParser.parse("01 Jan 70 00:00:00"), utc(1970, 1, 1))
        XCTAssertEqual(CookieDateParser.parse("01 Jan 99 00:00:00"), utc(1999, 1, 1))
        XCTAssertEqual(CookieDateParser.parse("01 Jan 69 00:00:00"), utc(2069, 1, 1))
        XCTAssertEqual(CookieDateParser.parse("01 Jan 00 00:00:00"), utc(2000, 1, 1))
    }

    func testDatesOutsideTheValidRangesAreRejected() {
        for text in ["32 Jan 2020 00:00:00", "00 Jan 2020 00:00:00", "01 Jan 1600 00:00:00", "01 Jan 2020 24:00:00",
                     "01 Jan 2020 23:60:00", "01 Jan 2020 23:59:60", "29 Feb 2021 00:00:00", "31 Apr 2020 00:00:00"] {
            XCTAssertNil(CookieDateParser.parse(text), text)
        }
    }

    func testLeapDayAndFirstAcceptedYearParse() {
        XCTAssertEqual(CookieDateParser.parse("29 Feb 2024 12:30:45"), utc(2024, 2, 29, 12, 30, 45))
        XCTAssertEqual(CookieDateParser.parse("01 Jan 1601 00:00:00"), utc(1601, 1, 1))
    }

    func testDateWithAMissingFieldIsRejected() {
        XCTAssertNil(CookieDateParser.parse("Jan 2020 00:00:00"))
        XCTAssertNil(CookieDateParser.parse("01 2020 00:00:00"))
        XCTAssertNil(CookieDateParser.parse("01 Jan 00:00:00"))
        XCTAssertNil(CookieDateParser.parse("01 Jan 2020"))
    }
}
