import Foundation
import XCTest
@testable import HTTPTransport

/// `PublicSuffixList`: rule kinds, the system list and the fallback without one.
final class CookiePublicSuffixListTests: XCTestCase {
    private let sample = PublicSuffixList(listText: """
        // comment line
        com
        co.uk
        *.ck
        !www.ck
        公司.cn
        example.org  trailing words are ignored
        """)

    func testNormalRulesAreSuffixesButTheirSubdomainsAreNot() {
        XCTAssertTrue(sample.isPublicSuffix("co.uk"))
        XCTAssertFalse(sample.isPublicSuffix("example.co.uk"))
        XCTAssertTrue(sample.isPublicSuffix("example.org"))
    }

    func testSingleLabelNamesAreAlwaysSuffixes() {
        XCTAssertTrue(sample.isPublicSuffix("com"))
        XCTAssertTrue(sample.isPublicSuffix("unlisted"))
    }

    func testWildcardRuleMakesEveryChildASuffixExceptExceptions() {
        XCTAssertTrue(sample.isPublicSuffix("anything.ck"))
        XCTAssertFalse(sample.isPublicSuffix("www.ck"))
        XCTAssertFalse(sample.isPublicSuffix("site.anything.ck"))
    }

    func testInternationalRulesAlsoMatchTheirPunycodeForm() {
        XCTAssertTrue(sample.isPublicSuffix("公司.cn"))
        XCTAssertTrue(sample.isPublicSuffix("xn--55qx5d.cn"))
    }

    func testPunycodeEncodesLikeRFC3492() {
        XCTAssertEqual(PublicSuffixList.Punycode.encode("bücher"), "bcher-kva")
        XCTAssertEqual(PublicSuffixList.Punycode.encode("公司"), "55qx5d")
        XCTAssertEqual(PublicSuffixList.Punycode.encode("ü"), "tda")
    }

    func testMissingListFallsBackToSingleLabelSuffixesOnly() {
        let fallback = PublicSuffixList(contentsOfFile: "/nonexistent/public_suffix_list.dat")
        XCTAssertTrue(fallback.isFallback)
        XCTAssertTrue(fallback.isPublicSuffix("com"))
        XCTAssertFalse(fallback.isPublicSuffix("co.uk"))
    }

    func testSystemListKnowsCommonSuffixes() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: PublicSuffixList.defaultPath), "no public suffix list")
        let list = PublicSuffixList.shared
        XCTAssertFalse(list.isFallback)
        XCTAssertTrue(list.isPublicSuffix("co.uk"))
        XCTAssertTrue(list.isPublicSuffix("github.io"))
        XCTAssertFalse(list.isPublicSuffix("example.co.uk"))
        XCTAssertFalse(list.isPublicSuffix("example.org"))
    }
}
