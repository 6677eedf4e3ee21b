import Foundation
import XCTest
@testable import HTTPTransport

/// `CookieStorage`: storage (RFC 6265 §5.3), retrieval (§5.4), limits and thread safety.
final class CookieStorageTests: XCTestCase {
    private let clock = CookieTestClock()
    private lazy var storage = CookieStorage(now: clock.now)

    private func url(_ string: String) -> URL { URL(string: string)! }

    private func names(for string: String) -> [String] {
        storage.cookies(for: url(string)).map(\.name)
    }

    func testHostOnlyCookieIsNotSentToSubdomains() {
        storage.store(setCookieHeaders: ["a=1"], for: url("http://example.org/"))
        XCTAssertEqual(names(for: "http://example.org/"), ["a"])
        XCTAssertEqual(names(for: "http://www.example.org/"), [])
    }

    func testDomainCookieIsSentToTheDomainAndItsSubdomainsOnly() {
        storage.store(setCookieHeaders: ["a=1; Domain=example.org"], for: url("http://www.example.org/"))
        XCTAssertEqual(names(for: "http://example.org/"), ["a"])
        XCTAssertEqual(names(for: "http://deep.sub.example.org/"), ["a"])
        XCTAssertEqual(names(for: "http://notexample.org/"), [])
        XCTAssertEqual(names(for: "http://example.com/"), [])
    }

    func testHostNamesCompareCaseInsensitively() {
        storage.store(setCookieHeaders: ["a=1"], for: url("http://WWW.Example.ORG/"))
        XCTAssertEqual(names(for: "http://www.example.org/"), ["a"])
    }

    func testDomainThatIsAPublicSuffixIsRefused() {
        storage.store(setCookieHeaders: ["a=1; Domain=com"], for: url("http://www.example.com/"))
        storage.store(setCookieHeaders: ["b=1; Domain=co.uk"], for: url("http://www.example.co.uk/"))
        XCTAssertEqual(storage.allCookies, [])
    }

    func testRegistrableDomainUnderAMultiLabelSuffixIsAccepted() {
        storage.store(setCookieHeaders: ["a=1; Domain=example.co.uk"], for: url("http://www.example.co.uk/"))
        XCTAssertEqual(names(for: "http://other.example.co.uk/"), ["a"])
    }

    func testPublicSuffixDomainEqualToTheHostBecomesHostOnly() {
        storage.store(setCookieHeaders: ["a=1; Domain=localhost"], for: url("http://localhost:8080/"))
        XCTAssertEqual(storage.allCookies.first?.isHostOnly, true)
        XCTAssertEqual(names(for: "http://localhost/"), ["a"])
    }

    func testDomainInThePrivateSectionOfTheListIsRefused() {
        storage.store(setCookieHeaders: ["a=1; Domain=github.io"], for: url("https://victim.github.io/"))
        XCTAssertEqual(storage.allCookies, [])
        XCTAssertEqual(names(for: "https://attacker.github.io/"), [])
    }

    func testWithoutSuffixDataADomainCookieIsKeptToItsHost() {
        let empty = PublicSuffixList.withoutData()
        let storage = CookieStorage(file: nil, now: clock.now, publicSuffixes: { empty })
        storage.store(setCookieHeaders: ["a=1; Domain=example.co.uk"], for: url("http://www.example.co.uk/"))
        storage.store(setCookieHeaders: ["b=1; Domain=www.example.co.uk"], for: url("http://www.example.co.uk/"))
        XCTAssertEqual(storage.allCookies.map(\.name), ["b"])
        XCTAssertEqual(storage.allCookies.first?.isHostOnly, true)
    }

    func testSecureCookieIsNotSentOverPlainHTTP() {
        storage.store(setCookieHeaders: ["s=1; Secure", "p=1"], for: url("https://example.org/"))
        XCTAssertEqual(names(for: "http://example.org/"), ["p"])
        XCTAssertEqual(names(for: "https://example.org/"), ["s", "p"])
        XCTAssertEqual(names(for: "wss://example.org/"), ["s", "p"])
    }

    func testLoopbackHostsCountAsSecureOriginsLikeInCurl() {
        storage.store(setCookieHeaders: ["s=1; Secure"], for: url("http://localhost:8080/"))
        storage.store(setCookieHeaders: ["s=1; Secure"], for: url("http://127.0.0.1:8080/"))
        storage.store(setCookieHeaders: ["s=1; Secure"], for: url("http://[::1]:8080/"))
        XCTAssertEqual(names(for: "http://localhost/"), ["s"])
        XCTAssertEqual(names(for: "http://127.0.0.1/"), ["s"])
        XCTAssertEqual(names(for: "http://[::1]/"), ["s"])
    }

    func testSecureCookieFromPlainHTTPIsRefused() {
        storage.store(setCookieHeaders: ["s=1; Secure"], for: url("http://example.org/"))
        XCTAssertEqual(storage.allCookies, [])
    }

    func testHTTPOnlyCookieIsStoredAndSent() {
        storage.store(setCookieHeaders: ["h=1; HttpOnly"], for: url("http://example.org/"))
        XCTAssertEqual(storage.cookies(for: url("http://example.org/")).first?.isHTTPOnly, true)
    }

    func testCookieIsSentOnlyToMatchingPaths() {
        storage.store(setCookieHeaders: ["a=1; Path=/api"], for: url("http://example.org/"))
        XCTAssertEqual(names(for: "http://example.org/api"), ["a"])
        XCTAssertEqual(names(for: "http://example.org/api/v1?q"), ["a"])
        XCTAssertEqual(names(for: "http://example.org/apiv2"), [])
        XCTAssertEqual(names(for: "http://example.org/"), [])
    }

    func testMaxAgeBeatsExpiresWhenStoring() {
        storage.store(setCookieHeaders: ["a=1; Expires=Wed, 01 Jan 2200 00:00:00 GMT; Max-Age=10"], for: url("http://example.org/"))
        clock.advance(by: 11)
        XCTAssertEqual(names(for: "http://example.org/"), [])
    }

    func testCookieExpiresWhenTheInjectedClockPassesItsExpiry() {
        storage.store(setCookieHeaders: ["a=1; Max-Age=60", "s=1"], for: url("http://example.org/"))
        clock.advance(by: 59)
        XCTAssertEqual(names(for: "http://example.org/"), ["a", "s"])
        clock.advance(by: 1)
        XCTAssertEqual(names(for: "http://example.org/"), ["s"])
        XCTAssertEqual(storage.allCookies.map(\.name), ["s"])
    }

    func testExpiredSetCookieRemovesTheStoredCookie() {
        storage.store(setCookieHeaders: ["a=1", "b=1"], for: url("http://example.org/"))
        storage.store(setCookieHeaders: ["a=gone; Max-Age=0"], for: url("http://example.org/"))
        XCTAssertEqual(names(for: "http://example.org/"), ["b"])
    }

    func testReplacementKeepsTheOriginalCreationOrder() {
        storage.store(setCookieHeaders: ["a=1", "b=1"], for: url("http://example.org/"))
        clock.advance(by: 10)
        storage.store(setCookieHeaders: ["a=2"], for: url("http://example.org/"))
        XCTAssertEqual(storage.cookieHeader(for: url("http://example.org/")), "a=2; b=1")
    }

    func testSameNameWithDifferentPathsAreSeparateCookies() {
        storage.store(setCookieHeaders: ["a=root; Path=/", "a=deep; Path=/x"], for: url("http://example.org/"))
        XCTAssertEqual(storage.cookieHeader(for: url("http://example.org/x/y")), "a=deep; a=root")
    }

    func testLongerPathsAreSentFirstThenOlderCookies() {
        storage.store(setCookieHeaders: ["z=1; Path=/", "y=1; Path=/a/b", "x=1; Path=/a", "w=1; Path=/"],
                      for: url("http://example.org/"))
        XCTAssertEqual(names(for: "http://example.org/a/b/c"), ["y", "x", "z", "w"])
    }

    func testCreationOrderIsDeterministicWithAFixedClock() {
        let names = (0..<20).map { "c\($0)" }
        storage.store(setCookieHeaders: names.map { "\($0)=1" }, for: url("http://example.org/"))
        XCTAssertEqual(self.names(for: "http://example.org/"), names)
    }

    func testCookieHeaderJoinsPairsOrIsNilWhenNoCookieApplies() {
        XCTAssertNil(storage.cookieHeader(for: url("http://example.org/")))
        storage.store(setCookieHeaders: ["a=1", "b=2"], for: url("http://example.org/"))
        XCTAssertEqual(storage.cookieHeader(for: url("http://example.org/")), "a=1; b=2")
    }

    func testIPAddressHostGetsOnlyItsOwnCookies() {
        storage.store(setCookieHeaders: ["a=1"], for: url("http://127.0.0.1:8080/"))
        XCTAssertEqual(names(for: "http://127.0.0.1/"), ["a"])
        XCTAssertEqual(names(for: "http://0.0.1/"), [])
    }

    func testPerDomainLimitEvictsTheLeastRecentlyUsedCookieOfThatDomain() {
        storage.maxCookiesPerDomain = 3
        storage.store(setCookieHeaders: ["a=1; Path=/a", "b=1; Path=/b", "c=1; Path=/c"], for: url("http://example.org/"))
        storage.store(setCookieHeaders: ["other=1"], for: url("http://other.org/"))
        clock.advance(by: 1)
        _ = storage.cookies(for: url("http://example.org/a"))  // a is now the most recently used
        storage.store(setCookieHeaders: ["d=1; Path=/d"], for: url("http://example.org/"))
        XCTAssertEqual(Set(storage.allCookies.map(\.name)), ["a", "c", "d", "other"])
    }

    func testTotalLimitEvictsTheLeastRecentlyUsedCookieOverall() {
        storage.maxCookies = 2
        storage.store(setCookieHeaders: ["a=1"], for: url("http://a.example/"))
        storage.store(setCookieHeaders: ["b=1"], for: url("http://b.example/"))
        _ = storage.cookies(for: url("http://a.example/"))
        storage.store(setCookieHeaders: ["c=1"], for: url("http://c.example/"))
        XCTAssertEqual(Set(storage.allCookies.map(\.name)), ["a", "c"])
    }

    func testEvictionRemovesExpiredCookiesBeforeLiveOnes() {
        storage.maxCookiesPerDomain = 2
        storage.store(setCookieHeaders: ["old=1", "short=1; Max-Age=5"], for: url("http://example.org/"))
        clock.advance(by: 10)
        storage.store(setCookieHeaders: ["new=1"], for: url("http://example.org/"))
        XCTAssertEqual(storage.allCookies.map(\.name), ["old", "new"])
    }

    func testLoweringALimitEvictsAtOnce() {
        storage.store(setCookieHeaders: ["a=1", "b=1", "c=1"], for: url("http://example.org/"))
        storage.maxCookies = 1
        XCTAssertEqual(storage.allCookies.map(\.name), ["c"])
    }

    func testSetCookieInsertsAndReplacesByNameDomainAndPath() {
        storage.setCookie(HTTPCookie(name: "a", value: "1", domain: ".Example.org", isHostOnly: false))
        storage.setCookie(HTTPCookie(name: "a", value: "2", domain: "example.org", isHostOnly: false))
        XCTAssertEqual(storage.cookieHeader(for: url("http://www.example.org/")), "a=2")
    }

    func testSetCookieIgnoresCookiesThatCouldNotBeSent() {
        storage.setCookie(HTTPCookie(name: "a", value: "1"))  // no domain
        storage.setCookie(HTTPCookie(name: "b", value: "x\r\nInjected: 1", domain: "example.org"))
        storage.setCookie(HTTPCookie(name: "c;d", value: "1", domain: "example.org"))
        XCTAssertEqual(storage.allCookies, [])
    }

    func testRemoveAllForgetsEveryCookie() {
        storage.store(setCookieHeaders: ["a=1", "b=1"], for: url("http://example.org/"))
        storage.removeAll()
        XCTAssertEqual(storage.allCookies, [])
        XCTAssertNil(storage.cookieHeader(for: url("http://example.org/")))
    }

    func testConcurrentStoresAndReadsFromEightThreadsStayConsistent() {
        let storage = CookieStorage()
        let misses = CookieTestCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            let own = URL(string: "http://h\(thread).example.org/")!
            for round in 0..<200 {
                storage.store(setCookieHeaders: ["t\(round % 20)=\(round)", "shared=\(thread); Domain=example.org"], for: own)
                let pairs = Set((storage.cookieHeader(for: own) ?? "").components(separatedBy: "; "))
                if !pairs.contains("t\(round % 20)=\(round)") { misses.increment() }
                _ = storage.allCookies
                if round % 50 == 0 { storage.setCookie(HTTPCookie(name: "set\(thread)", value: "1", domain: "example.org")) }
            }
        }
        XCTAssertEqual(misses.value, 0)
        let cookies = storage.allCookies
        XCTAssertEqual(cookies.count, 8 * 20 + 1 + 8)
        XCTAssertEqual(cookies.filter { $0.name == "shared" }.count, 1)
    }
}
