import Foundation
@testable import HTTPTransport
import XCTest

/// The proxy rules decided without a network: proxy URLs, libcurl's `no_proxy` matching and
/// the environment variables libcurl reads for each scheme.
final class ProxyRulesTests: XCTestCase {
    func testProxyURLsOfTheFourKindsAreAccepted() throws {
        XCTAssertEqual(try ProxyURL(Proxy("http://proxy.internal:3128")).url, "http://proxy.internal:3128")
        XCTAssertEqual(try ProxyURL(Proxy("HTTPS://proxy.internal")).url, "https://proxy.internal")
        XCTAssertEqual(try ProxyURL(Proxy("socks5://127.0.0.1:1080/")).url, "socks5://127.0.0.1:1080")
        XCTAssertEqual(try ProxyURL(Proxy("socks5h://[::1]:1080")).url, "socks5h://[::1]:1080")
    }

    func testCredentialsAreTakenOutOfTheURL() throws {
        let proxy = try ProxyURL(Proxy("http://us%40er:p%3Ass@proxy.internal:3128"))
        XCTAssertEqual(proxy.url, "http://proxy.internal:3128")
        XCTAssertEqual(proxy.username, "us@er")
        XCTAssertEqual(proxy.password, "p:ss")
        let explicit = try ProxyURL(Proxy("http://a:b@proxy.internal:3128", username: "c", password: "d"))
        XCTAssertEqual(explicit.username, "c")
        XCTAssertEqual(explicit.password, "d")
    }

    func testDescriptionNeverShowsThePassword() {
        XCTAssertFalse(Proxy("http://u:topsecret@proxy:3128").description.contains("topsecret"))
        XCTAssertFalse(Proxy("http://proxy:3128", username: "u", password: "topsecret").description.contains("topsecret"))
        XCTAssertFalse(Proxy("ftp://u:topsecret@proxy:3128").description.contains("topsecret"))
        XCTAssertEqual(ProxyURL.redacted("http://u:topsecret@proxy:3128"), "http://u:***@proxy:3128")
        XCTAssertEqual(Proxy.direct.description, "Proxy.direct")
    }

    private func assertCovers(_ list: String, _ covered: [String], not uncovered: [String], line: UInt = #line) {
        for host in covered { XCTAssertTrue(NoProxyList(list).covers(host: host), "\(list) should cover \(host)", line: line) }
        for host in uncovered { XCTAssertFalse(NoProxyList(list).covers(host: host), "\(list) should not cover \(host)", line: line) }
    }

    func testNoProxyMatchesHostsAndTheirSubdomains() {
        assertCovers("internal.example, .corp.example,localhost.",
                     ["internal.example", "api.internal.example", "API.Internal.Example.", "corp.example", "x.corp.example", "localhost"],
                     not: ["notinternal.example", "example"])
    }

    func testNoProxyMatchesAddressesExactlyOrByCIDR() {
        assertCovers("10.0.0.0/8,192.168.1.7,::1,fd00::/8", ["10.200.3.4", "192.168.1.7", "[::1]", "fd12::7"],
                     not: ["192.168.1.8", "fe80::1", "11.0.0.1"])
        // An address is never matched as a domain suffix.
        assertCovers("0.0.1", [], not: ["10.0.0.1"])
    }

    func testNoProxyStarCoversEverythingOnlyAlone() {
        XCTAssertTrue(NoProxyList("*").covers(host: "anything.example"))
        XCTAssertFalse(NoProxyList("a.example,*").covers(host: "anything.example"))
        XCTAssertFalse(NoProxyList("").covers(host: "anything.example"))
    }

    func testEnvironmentVariablesAsLibcurlReadsThem() {
        func proxy(_ variables: [String: String], _ scheme: String, _ host: String = "api.example") -> String? {
            ProxyEnvironment { variables[$0] }.proxy(scheme: scheme, host: host)?.variable
        }
        // http: lower case only (HTTP_PROXY can be set by a CGI request's Proxy header).
        XCTAssertEqual(proxy(["http_proxy": "http://p:1"], "http"), "http_proxy")
        XCTAssertNil(proxy(["HTTP_PROXY": "http://p:1"], "http"))
        // https: either case, lower case first.
        XCTAssertEqual(proxy(["HTTPS_PROXY": "http://p:1"], "https"), "HTTPS_PROXY")
        XCTAssertEqual(proxy(["https_proxy": "http://p:1", "HTTPS_PROXY": "http://q:1"], "https"), "https_proxy")
        XCTAssertNil(proxy(["http_proxy": "http://p:1"], "https"))
        // all_proxy, either case, when the scheme has none.
        XCTAssertEqual(proxy(["ALL_PROXY": "socks5h://p:1"], "http"), "ALL_PROXY")
        XCTAssertEqual(proxy(["all_proxy": "socks5h://p:1", "https_proxy": "http://p:1"], "https"), "https_proxy")
        // Empty values count as unset.
        XCTAssertEqual(proxy(["https_proxy": "", "all_proxy": "http://p:1"], "https"), "all_proxy")
        // no_proxy first, else NO_PROXY.
        XCTAssertNil(proxy(["http_proxy": "http://p:1", "no_proxy": "example"], "http"))
        XCTAssertNil(proxy(["http_proxy": "http://p:1", "NO_PROXY": "api.example"], "http"))
        XCTAssertEqual(proxy(["http_proxy": "http://p:1", "no_proxy": "other", "NO_PROXY": "api.example"], "http"), "http_proxy")
    }

    func testStallTimeoutIsCountedInWholeSecondsRoundedUp() throws {
        XCTAssertEqual(try ConnectionOptions.lowSpeedTime(0.2), 1)
        XCTAssertEqual(try ConnectionOptions.lowSpeedTime(1), 1)
        XCTAssertEqual(try ConnectionOptions.lowSpeedTime(1.5), 2)
        XCTAssertEqual(try ConnectionOptions.lowSpeedTime(.infinity), 1_000_000_000)
    }

    func testResolveOverridesBecomeLibcurlEntriesWithIPv6InBrackets() throws {
        XCTAssertEqual(try ConnectionOptions.resolveEntries(["API.example:443": "10.0.0.7", "b.example:80": "::1, 192.0.2.1"]),
                       ["api.example:443:10.0.0.7", "b.example:80:[::1],192.0.2.1"])
    }
}
