import Foundation
import XCTest
@testable import HTTPTransport

/// `PublicSuffixList`: the list through libpsl, the data it is given, and the fail-closed case
/// without data.
final class CookiePublicSuffixListTests: XCTestCase {
    private let list = PublicSuffixList.shared

    func testSharedListHasLibpslData() {
        XCTAssertTrue(list.hasData)
    }

    func testICANNSuffixesArePublic() {
        for suffix in ["com", "org", "uk", "co.uk", "com.au"] {
            XCTAssertTrue(list.isPublicSuffix(suffix), suffix)
        }
    }

    func testPrivateSectionSuffixesArePublic() {
        XCTAssertTrue(list.isPublicSuffix("github.io"))
        XCTAssertTrue(list.isPublicSuffix("s3.amazonaws.com"))
    }

    func testRegistrableDomainsAreNotSuffixes() {
        for domain in ["example.com", "example.co.uk", "example.org", "user.github.io"] {
            XCTAssertFalse(list.isPublicSuffix(domain), domain)
        }
    }

    func testWildcardRuleMakesEveryChildASuffixExceptItsException() {
        XCTAssertTrue(list.isPublicSuffix("anything.ck"))
        XCTAssertFalse(list.isPublicSuffix("www.ck"))
        XCTAssertFalse(list.isPublicSuffix("site.anything.ck"))
    }

    func testInternationalSuffixMatchesInUTF8AndPunycode() {
        XCTAssertTrue(list.isPublicSuffix("公司.cn"))
        XCTAssertTrue(list.isPublicSuffix("xn--55qx5d.cn"))
        XCTAssertFalse(list.isPublicSuffix("example.xn--55qx5d.cn"))
    }

    func testSingleLabelNamesAreAlwaysSuffixes() {
        XCTAssertTrue(list.isPublicSuffix("unlistedtld"))
        XCTAssertTrue(list.isPublicSuffix("localhost"))
    }

    func testEmptyOrNULNamesCountAsSuffixes() {
        XCTAssertTrue(list.isPublicSuffix(""))
        XCTAssertTrue(list.isPublicSuffix("example.com\0.evil"))
    }

    func testListFileGivenAppliesItsOwnRules() throws {
        let file = try temporaryDirectory("cookie-tests").appendingPathComponent("list.dat")
        try Data("// a private list\nexample.org\n*.ck\n!www.ck\n".utf8).write(to: file)
        let own = PublicSuffixList(file: file)
        XCTAssertTrue(own.hasData)
        XCTAssertTrue(own.isPublicSuffix("example.org"))
        XCTAssertFalse(list.isPublicSuffix("example.org"), "the shared list is not changed")
        XCTAssertFalse(own.isPublicSuffix("www.ck"))
    }

    func testUnreadableFileGivesAListWithoutData() {
        XCTAssertFalse(PublicSuffixList(file: URL(fileURLWithPath: "/nonexistent/public_suffix_list.dat")).hasData)
    }

    func testWithoutDataEveryNameIsASuffix() {
        let empty = PublicSuffixList.withoutData()
        XCTAssertFalse(empty.hasData)
        XCTAssertTrue(empty.isPublicSuffix("example.com"))
        XCTAssertTrue(empty.isPublicSuffix("www.example.co.uk"))
    }
}
