import Foundation
@testable import HTTPTransport
import XCTest

/// How the cache reads `Age` and `Expires` (RFC 9111 §5.1 and §5.3): cases from a public
/// HTTP-caching conformance suite.
final class CacheHeaderParsingTests: XCTestCase {
    private let t0 = 1_800_000_000.0   // 2027-01-15 08:00:00 GMT

    private func freshness(_ headers: HTTPHeaders, now: Double? = nil) -> CacheFreshness {
        CacheFreshness(status: 200, headers: headers, directives: CacheDirectives(headers),
                       requestTime: t0, responseTime: t0, now: now ?? t0)
    }

    // MARK: Age

    func testAnAgeListCountsByItsFirstMember() {
        XCTAssertEqual(CacheFreshness.ageValue(["Age": "7200, 0"]), 7200)
        XCTAssertEqual(CacheFreshness.ageValue(HTTPHeaders([.init(name: "Age", value: "7200"), .init(name: "Age", value: "0")])), 7200)
        XCTAssertEqual(CacheFreshness.ageValue(["Age": "junk, 7200"]), 0)
        let figures = freshness(["Cache-Control": "max-age=3600", "Age": "7200, 0"])
        XCTAssertFalse(figures.isFresh)
    }

    // MARK: Expires

    func testTheThreeHTTPDateFormsAreRead() {
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: t0), 784_111_777)
        XCTAssertEqual(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: t0), 784_111_777)
        XCTAssertEqual(HTTPDate.parse("Sun Nov  6 08:49:37 1994", now: t0), 784_111_777)
        XCTAssertEqual(HTTPDate.parse("Fri Jan 15 08:00:00 2027", now: t0), t0)
        XCTAssertEqual(HTTPDate.parse("Thu, 29 Feb 2024 00:00:00 GMT", now: t0), 1_709_164_800)
    }

    func testATwoDigitRFC850YearMoreThanFiftyYearsAheadIsInThePastCentury() {
        // Seen from 2027: "76" is 2076 (49 years ahead), "78" is 1978 (51 years ahead would be 2078).
        XCTAssertEqual(HTTPDate.parse("Wednesday, 01-Jan-76 00:00:00 GMT", now: t0), 3_345_062_400)
        XCTAssertEqual(HTTPDate.parse("Sunday, 01-Jan-78 00:00:00 GMT", now: t0), 252_460_800)
    }

    func testAnythingButExactlyOneHTTPDateIsNoDate() {
        for text in ["Sun, 06 Nov 1994 08:49:37 AEST", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 94 08:49:37 GMT",
                     "Sun, 06-Nov-1994 08:49:37 GMT", "Sun 06 Nov 1994 08:49:37 GMT", "Sun,  06 Nov 1994 08:49:37 GMT",
                     "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 Nov 1994 08.49.37 GMT", "sun, 06 nov 1994 08:49:37 gmt",
                     "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sunday, 06-Nov-94 08:49:37 UTC",
                     "Sun, 06-Nov-94 08:49:37 GMT", "Sun Nov 6 08:49:37 1994", "0", "",
                     "Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT", " Sun, 06 Nov 1994 08:49:37 GMT"] {
            XCTAssertNil(HTTPDate.parse(text, now: t0), text)
        }
    }

    func testAnInvalidExpiresMeansAlreadyExpired() {
        let future = t0 + 86_400
        XCTAssertEqual(freshness(["Expires": "Sat, 16 Jan 2027 08:00:00 GMT"]).lifetime, future - t0)
        for text in ["Sat, 16 Jan 2027 08:00:00 AEST", "Sat, 16 Jan 27 08:00:00 GMT", "Sat, 16-Jan-2027 08:00:00 GMT",
                     "Sat 16 Jan 2027 08:00:00 GMT", "Sat, 16 Jan  2027 08:00:00 GMT", "Sat, 16 Jan 2027 8:00:00 GMT"] {
            XCTAssertEqual(freshness(["Expires": text]).lifetime, 0, text)
        }
    }

    func testTwoExpiresFieldsMeanAlreadyExpired() {
        let headers = HTTPHeaders([.init(name: "Expires", value: "Sat, 16 Jan 2027 08:00:00 GMT"),
                                   .init(name: "Expires", value: "Sat, 16 Jan 2027 08:00:00 GMT")])
        XCTAssertEqual(freshness(headers).lifetime, 0)
    }

    func testTheCookieDateParserStaysLenient() {
        XCTAssertNotNil(CookieDateParser.parse("Sat, 16-Jan-2027 08:00:00 UTC"))
    }
}
